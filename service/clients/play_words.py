"""The words `tablestream play` says for the games' own identifiers (issue 28): every game's
event types, command types and the field names of their events, commands and views, each as
the plain words its identifier spells (``card_drawn`` -> ``card drawn``), marked for the
catalogs so that the terminal says them in its language (``play_text.words``).

A new event, command or field of a game goes here too; one missing is said in English.
Collected from ``games/*/shapes.py`` (EVENTS, VIEW) and each game's ``COMMANDS``.
"""

from __future__ import annotations

from games.core import N_

EVENTS = (
    N_("acted with"), N_("action closed"), N_("action deck reshuffled"), N_("action opened"),
    N_("added"), N_("admiral played"), N_("army advanced"), N_("army moved"),
    N_("army retreated"), N_("attackers returned"), N_("battle ended"), N_("battle round ended"),
    N_("battle started"), N_("battle step"), N_("blast missed"), N_("blasts salvaged"),
    N_("captain played"), N_("card cancelled"), N_("card discarded"), N_("card drawn"),
    N_("card inspected"), N_("card played"), N_("card revealed"), N_("card settled"),
    N_("card used"), N_("cards dealt"), N_("cards discarded"), N_("cards drawn"),
    N_("cards played"), N_("casualties removed"), N_("chain closed"), N_("challenge made"),
    N_("challenge passed"), N_("combat card chosen"), N_("combat cards revealed"),
    N_("combat rolled"), N_("damage dealt"), N_("damage moved"), N_("damage repaired"),
    N_("defence declared"), N_("defence declined"), N_("dice rolled"), N_("die used"),
    N_("direct hit ready"), N_("discard taken"), N_("effect expired"), N_("effect placed"),
    N_("effect swept"), N_("elite reduced"), N_("excess removed"), N_("faker blue started"),
    N_("figures chosen"), N_("figures mustered"), N_("fleet deck reshuffled"), N_("fleet drawn"),
    N_("fleet placed"), N_("fleets dealt"), N_("fleets revealed"), N_("game ended"),
    N_("gave up"), N_("hand raided"), N_("hands dealt"), N_("health gained"), N_("health lost"),
    N_("health stolen"), N_("hits scored"), N_("leaders removed"), N_("loot started"),
    N_("magblast started"), N_("maskmen started"), N_("merchant captured"), N_("merchant played"),
    N_("nation activated"), N_("no mercy agreed"), N_("no mercy proposed"),
    N_("no mercy refused"), N_("order declared"), N_("passed"), N_("phase started"),
    N_("pirate played"), N_("player eliminated"), N_("players eliminated"),
    N_("political advanced"), N_("power used"), N_("reinforcement paid"), N_("response made"),
    N_("response passed"), N_("round ended"), N_("round started"), N_("season dealt"),
    N_("season ended"), N_("settlement captured"), N_("ship captured"), N_("ship destroyed"),
    N_("ship moved"), N_("ship placed"), N_("ships scattered"), N_("siege lifted"),
    N_("sound made"), N_("tally started"), N_("turn ended"), N_("turn passed"),
    N_("turn skipped"), N_("turn started"), N_("war begun"), N_("went out"),
    N_("withdrew into siege"),
)
COMMANDS = (
    N_("attack"), N_("discard"), N_("draw"), N_("reinforce"),
    N_("accept no mercy"), N_("add"), N_("advance"), N_("besiege"), N_("blast"), N_("challenge"),
    N_("choose figures"), N_("combat card"), N_("continue battle"), N_("cranium"), N_("defend"),
    N_("dh effect"), N_("diplomacy"), N_("direct hit"), N_("draw card"), N_("end action"),
    N_("end phase"), N_("end turn"), N_("extend siege"), N_("give up"), N_("launch"),
    N_("make sound"), N_("move"), N_("muster"), N_("no challenge"), N_("no defence"),
    N_("no response"), N_("pass"), N_("place fleet"), N_("place ship"), N_("play"),
    N_("play admiral"), N_("play captain"), N_("play card"), N_("play merchant"),
    N_("play pirate"), N_("propose no mercy"), N_("raid hand"), N_("refuse no mercy"),
    N_("respond"), N_("retreat"), N_("salvage blasts"), N_("second move"), N_("skip die"),
    N_("stay silent"), N_("sweep"), N_("take discard"), N_("take hit"), N_("transfer blast"),
    N_("use"), N_("withdraw"),
)
FIELDS = (
    N_("action"), N_("action deck"), N_("amount"), N_("amounts"), N_("armies"), N_("arrived"),
    N_("attack mode"), N_("attacker"), N_("beginner"), N_("by"), N_("by seat"), N_("cancelled"),
    N_("card"), N_("cards"), N_("carrier"), N_("challenger"), N_("challenger penalty"),
    N_("city"), N_("count"), N_("counts"), N_("damage"), N_("debuted"), N_("deck"),
    N_("deck count"), N_("deck counts"), N_("decks"), N_("declare"), N_("declared"),
    N_("def loc"), N_("defender"), N_("dice"), N_("die"), N_("discarded"), N_("edition"),
    N_("effect"), N_("effects"), N_("elite"), N_("empty deck mode"), N_("end requires play"),
    N_("figures"), N_("first"), N_("fleet"), N_("fleet deck"), N_("from"), N_("from seat"),
    N_("hand"), N_("hand counts"), N_("hands"), N_("health"), N_("hidden"), N_("hit"), N_("hits"),
    N_("hulls"), N_("kind"), N_("last"), N_("leader"), N_("liar penalty"), N_("link"), N_("loc"),
    N_("max rounds"), N_("max timeouts"), N_("merchant"), N_("mod"), N_("more"), N_("moves"),
    N_("nation"), N_("nations"), N_("next"), N_("no mercy"), N_("options"), N_("order"),
    N_("origin"), N_("owner"), N_("permanent"), N_("phase"), N_("place"), N_("played"),
    N_("points"), N_("power"), N_("pre"), N_("priest"), N_("proved"), N_("public"), N_("races"),
    N_("ranking"), N_("reaction seconds"), N_("reason"), N_("recruits"), N_("redirect"),
    N_("region"), N_("regular"), N_("relentless"), N_("replacement"), N_("rerolls"),
    N_("returning"), N_("round"), N_("scenario"), N_("scores"), N_("season"), N_("seasons"),
    N_("seat"), N_("seat target"), N_("seats"), N_("set aside"), N_("set aside count"),
    N_("ship"), N_("ships"), N_("side"), N_("silent"), N_("slot"), N_("sound"),
    N_("sound effects"), N_("source"), N_("squadron"), N_("src"), N_("dst"), N_("stage"),
    N_("step"), N_("supply"), N_("target"), N_("target seat"), N_("targets"), N_("team capture"),
    N_("teams"), N_("then"), N_("tiebreak"), N_("tied"), N_("to"), N_("truthful"), N_("turn"),
    N_("turn seconds"), N_("turret"), N_("unclaimed"), N_("value"), N_("values"), N_("vp"),
    N_("why"), N_("windows"), N_("winner"), N_("winners"), N_("wins needed"), N_("wrestler"),
    N_("x"), N_("yes"), N_("zone"), N_("zones"), N_("n"), N_("e"), N_("s"), N_("w"),
)
# The keys of the views shown by the generic page (Mag Blast, Tally).
VIEW_FIELDS = (
    N_("action deck cards"), N_("action discard"), N_("alive"), N_("all dealt"), N_("all placed"),
    N_("chain"), N_("clock"), N_("dealt"), N_("dh"), N_("fired"), N_("fleet deck cards"),
    N_("fleet discard"), N_("gone"), N_("kinds"), N_("label"), N_("links"), N_("my placement"),
    N_("origins"), N_("out"), N_("pending"), N_("placed"), N_("placing"), N_("placing ships"),
    N_("proposal"), N_("refused"), N_("result"), N_("started"), N_("temp"), N_("total"),
    N_("turn number"), N_("under"), N_("uses"), N_("viewer"),
)
# Values the terminal names by words too: Mag Blast's attack modes and on/off, War of the
# Ring's action die faces, and Faker Blue's
# Bomber among its card counts (games.po's "bomber" is ambiguous: Mag Blast has one too).
VALUES = (N_("free for all"), N_("neighbours"), N_("on"), N_("off"), N_("character"),
          N_("army"), N_("event"), N_("muster army"), N_("will"), N_("eye"),
          N_("bomber"))
# The client's own small words: a missing value, an empty list, a yes/no field.
CLIENT = (N_("no {thing}"), N_("none"), N_("yes"), N_("no"))
