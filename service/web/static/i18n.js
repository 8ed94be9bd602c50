// The page's words in the player's language (issue 28). One catalog per language, built by the
// server from the gettext catalogs (service/translations/<locale>/LC_MESSAGES/web.po for the
// page, games.po for the games' names) at /play/i18n/<locale>.json; English for any string a
// catalog lacks. The language: the one chosen on the page (remembered in this browser), else the
// browser's own if the page has it, else English.
//   t('Sign in')                          a sentence
//   t('Welcome, {name}.', { name })       with named fields (numbers formatted for the locale)
//   tn('{n} card', '{n} cards', n)        plural forms by Intl.PluralRules
//   term('wotr.region.Edoras', 'Edoras')  a game's name for a thing (games.po), by its key

const KEY = 'tablestream.lang';
const FALLBACK = 'en';

const state = {
  locale: FALLBACK, messages: {}, terms: {}, names: {}, plural: ['one', 'other'], languages: { en: 'English' }, // i18n-ignore
  rules: new Intl.PluralRules(FALLBACK), numbers: new Intl.NumberFormat(FALLBACK),
};

// The languages the page offers ({code: name in that language}), once loaded.
export const languages = () => ({ ...state.languages });
export const locale = () => state.locale;

function wanted(offered) {
  const chosen = localStorage.getItem(KEY);
  if (chosen && offered.includes(chosen)) return chosen;
  for (const tag of navigator.languages || [navigator.language || '']) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (offered.includes(base)) return base;
  }
  return FALLBACK;
}

async function fetchCatalog(code) {
  const response = await fetch(new URL(`./i18n/${code}.json`, import.meta.url));
  if (!response.ok) throw new Error(`no catalog for ${code}`);
  return response.json();
}

// Loads the player's language; the page starts after it (app.js).
export async function loadLanguage() {
  let catalog;
  try {
    const english = await fetchCatalog(FALLBACK);
    const code = wanted(Object.keys(english.languages));
    catalog = code === FALLBACK ? english : await fetchCatalog(code);
  } catch (error) {
    console.error(error);
    return; // the page still works, in the English of its source
  }
  Object.assign(state, {
    locale: catalog.locale, messages: catalog.messages, terms: catalog.terms, names: catalog.names,
    plural: catalog.plural, languages: catalog.languages,
    rules: new Intl.PluralRules(catalog.locale), numbers: new Intl.NumberFormat(catalog.locale),
  });
  document.documentElement.lang = catalog.locale;
}

// Remembers a language and reloads the page in it.
export function chooseLanguage(code) {
  localStorage.setItem(KEY, code);
  location.reload();
}

export function num(value) {
  return typeof value === 'number' && Number.isFinite(value) ? state.numbers.format(value) : String(value);
}

function fill(text, fields) {
  if (!fields) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in fields ? num(fields[name]) : whole));
}

export function t(msgid, fields) {
  const text = state.messages[msgid];
  return fill(typeof text === 'string' && text ? text : msgid, fields);
}

// `n` picks the form; `{n}` in the text is the number.
export function tn(singular, pluralText, n, fields) {
  const forms = state.messages[singular];
  const all = { n, ...fields };
  if (Array.isArray(forms)) {
    const index = Math.max(0, state.plural.indexOf(state.rules.select(n)));
    const text = forms[Math.min(index, forms.length - 1)];
    if (text) return fill(text, all);
  }
  return fill(n === 1 ? singular : pluralText, all);
}

export function term(key, english) {
  return state.terms[key] || english;
}

// A game's name for a thing known by its English name only (a rules text names it so):
// termNamed('faker_blue.card.', 'Shield-bearer') -> '방패병'.
export function termNamed(prefix, english) {
  const key = Object.keys(state.names).find((k) => k.startsWith(prefix) && state.names[k] === english);
  return key ? term(key, english) : english;
}
