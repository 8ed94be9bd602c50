"""The catalog and the OpenAPI document list Mag Blast with its variants and bot levels."""

from __future__ import annotations

from pathlib import Path


def test_the_catalog_offers_mag_blast_with_its_variants(api):
    response = api.client.get("/v1/games/catalog")
    assert response.status_code == 200
    entries = response.json if isinstance(response.json, list) else response.json["games"]
    entry = next(e for e in entries if e["name"] == "magblast")
    assert (entry["min_seats"], entry["max_seats"]) == (2, 8)
    text = str(entry)
    for option in ("attack_mode", "no_mercy", "sound_effects", "neighbours", "strict"):
        assert option in text
    assert {"random", "basic"} <= set(entry["bot_levels"])


def test_the_openapi_document_names_mag_blast():
    assert "magblast" in (Path(__file__).parents[2] / "openapi.yaml").read_text()
