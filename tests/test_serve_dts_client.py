"""The DTS API as a client that knows only the specification sees it (docs/dts.md).

Starting at the Entry endpoint and following nothing but the URI templates the answers give
(expanded by ``uritemplate``, RFC 6570), the client walks the collections down to a Resource,
navigates its citation tree and fetches passages, and checks each answer against JSON Schemas
written here from the tables of DTS 1.0 (distributed-text-services/specifications,
``versions/v1.0``: Entry, Collection, Navigation, CitableUnit, Pagination). The endpoint tests
with exact values are in test_serve_dts.py; this file checks that a generic client can use the
API at all: absolute templates, the parameters each template must offer, the shapes of answers.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from lxml import etree
from starlette.testclient import TestClient
from uritemplate import URITemplate

from yili_corpus.api import load_work
from yili_corpus.serve import create_app

BASE = "http://testserver"
TEI_NS = "http://www.tei-c.org/ns/1.0"
DTS_NS = "https://w3id.org/api/dts#"

URI = {"type": "string", "minLength": 1}
TEMPLATE = {"type": "string", "minLength": 1}

CITE_STRUCTURE: dict[str, Any] = {"type": "array", "items": {
    "type": "object", "required": ["citeType"],
    "properties": {"citeType": {"type": "string"}, "citeStructure": {"$ref": "#/$defs/citeStructure"}}}}

CITATION_TREES = {"type": "array", "items": {
    "type": "object", "required": ["@type"],
    "properties": {"@type": {"const": "CitationTree"}, "identifier": {"type": "string"},
                   "description": {"type": "string"},
                   "citeStructure": {"$ref": "#/$defs/citeStructure"}}}}

PAGINATION = {"type": "object", "required": ["@id", "@type", "first", "previous", "next", "last"],
              "properties": {"@type": {"const": "Pagination"}}}

METADATA = {"type": "object"}

MEMBER: dict[str, Any] = {
    "type": "object",
    "required": ["@id", "@type", "title", "totalParents", "collection"],
    "properties": {
        "@id": URI, "@type": {"enum": ["Collection", "Resource"]}, "title": {"type": "string"},
        "description": {"type": "string"},
        "totalParents": {"type": "integer", "minimum": 0}, "totalChildren": {"type": "integer", "minimum": 0},
        "dublinCore": METADATA, "extensions": METADATA,
        "collection": TEMPLATE, "navigation": TEMPLATE, "document": TEMPLATE,
        "citationTrees": CITATION_TREES, "mediaTypes": {"type": "array", "items": {"type": "string"}},
        "view": PAGINATION,
    },
    "allOf": [
        {"if": {"properties": {"@type": {"const": "Collection"}}},
         "then": {"required": ["totalChildren"]}},
        {"if": {"properties": {"@type": {"const": "Resource"}}},
         "then": {"required": ["navigation", "document"]}},
    ],
}

SCHEMAS: dict[str, dict[str, Any]] = {
    "entry": {"type": "object", "required": ["@context", "@id", "@type", "dtsVersion", "collection",
                                             "navigation", "document"],
              "properties": {"@type": {"const": "EntryPoint"}, "dtsVersion": {"const": "1.0"},
                             "collection": TEMPLATE, "navigation": TEMPLATE, "document": TEMPLATE}},
    "collection": {"allOf": [MEMBER, {
        "required": ["@context", "dtsVersion"],
        "properties": {"dtsVersion": {"const": "1.0"}, "member": {"type": "array", "items": MEMBER}}}]},
    "navigation": {
        "type": "object", "required": ["@context", "@id", "@type", "dtsVersion", "resource"],
        "properties": {
            "@type": {"const": "Navigation"}, "dtsVersion": {"const": "1.0"},
            "resource": {"type": "object",
                         "required": ["@id", "@type", "collection", "navigation", "document", "citationTrees"],
                         "properties": {"@type": {"const": "Resource"}, "citationTrees": CITATION_TREES}},
            "ref": {"$ref": "#/$defs/unit"}, "start": {"$ref": "#/$defs/unit"}, "end": {"$ref": "#/$defs/unit"},
            "member": {"type": "array", "items": {"$ref": "#/$defs/unit"}},
            "view": PAGINATION}},
}
DEFS = {"citeStructure": CITE_STRUCTURE, "unit": {
    "type": "object", "required": ["identifier", "@type", "level", "parent"],
    "properties": {"identifier": {"type": "string"}, "@type": {"const": "CitableUnit"},
                   "level": {"type": "integer", "minimum": 1}, "parent": {"type": ["string", "null"]},
                   "citeType": {"type": "string"}, "dublinCore": METADATA, "extensions": METADATA}}}


def check(kind: str, data: dict[str, Any]) -> None:
    schema = {**SCHEMAS[kind], "$defs": DEFS}
    errors = sorted(Draft202012Validator(schema).iter_errors(data), key=str)
    assert not errors, f"{kind}: " + "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(load_work()), base_url=BASE) as c:
        yield c


def get_json(client: TestClient, url: str, kind: str) -> dict[str, Any]:
    assert url.startswith(BASE + "/"), f"not an absolute URL of the API: {url}"
    r = client.get(url)
    assert r.status_code == 200, (url, r.status_code, r.text[:200])
    assert r.headers["content-type"].startswith("application/ld+json"), url
    data = r.json()
    check(kind, data)
    return data


def expand(template: str, **values: Any) -> str:
    return URITemplate(template).expand({k: v for k, v in values.items() if v is not None})


@pytest.fixture(scope="module")
def entry(client: TestClient) -> dict[str, Any]:
    return get_json(client, BASE + "/api/dts/", "entry")


def test_the_entry_offers_every_parameter_of_the_spec(entry: dict[str, Any]) -> None:
    wants = {"collection": {"id", "page", "nav"},
             "navigation": {"resource", "ref", "start", "end", "down", "tree", "page"},
             "document": {"resource", "ref", "start", "end", "tree", "mediaType"}}
    for name, params in wants.items():
        assert set(URITemplate(entry[name]).variable_names) == params, name
        assert entry[name].startswith(BASE + "/api/dts/"), name


def walk_to_resource(client: TestClient, entry: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Down the collections from the root to the first Resource, following templates only."""
    path = []
    col = get_json(client, expand(entry["collection"]), "collection")
    for _ in range(5):
        path.append(col["@id"])
        assert col["totalChildren"] == len(col["member"]) or "view" in col
        first = col["member"][0]
        col = get_json(client, expand(first["collection"]), "collection")
        if col["@type"] == "Resource":
            path.append(col["@id"])
            return col, path
    raise AssertionError(f"no Resource below {path}")


def test_a_client_walks_from_the_entry_to_a_resource_and_back(client: TestClient, entry: dict[str, Any]) -> None:
    res, path = walk_to_resource(client, entry)
    assert res["@id"] == "shiguanli"  # the first chapter of the work
    for name, params in {"collection": {"nav"}, "navigation": {"ref", "start", "end", "down"},
                         "document": {"ref", "start", "end"}}.items():
        assert params <= set(URITemplate(res[name]).variable_names), name
    parents = get_json(client, expand(res["collection"], nav="parents"), "collection")
    assert [m["@id"] for m in parents["member"]] == [path[-2]] == ["yili/shiguanli"]
    assert parents["totalParents"] == 1


def test_a_client_navigates_and_reads_a_resource(client: TestClient, entry: dict[str, Any]) -> None:
    res, _ = walk_to_resource(client, entry)
    top = get_json(client, expand(res["navigation"], down=1), "navigation")
    units = top["member"]
    assert units and all(u["level"] == 1 and u["parent"] is None for u in units)
    last = units[-1]["identifier"]
    sub = get_json(client, expand(res["navigation"], ref=last, down=-1), "navigation")
    assert sub["ref"]["identifier"] == last
    assert sub["member"][0]["identifier"] == last
    assert {u["level"] for u in sub["member"]} == {1, 2, 3}
    assert all(u["identifier"].startswith(last + ".") for u in sub["member"][1:])
    # the passage itself: TEI with the fragment in dts:wrapper
    r = client.get(expand(res["document"], ref=last))
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/tei+xml")
    assert 'rel="collection"' in r.headers["link"]
    root = etree.fromstring(r.content)
    assert root.tag == f"{{{TEI_NS}}}TEI"
    wrapper = root.find(f".//{{{DTS_NS}}}wrapper")
    assert wrapper is not None and len(wrapper)
    leaves = [u["identifier"] for u in sub["member"] if u["level"] == 3]
    r = client.get(expand(res["document"], start=leaves[0], end=leaves[-1]))
    assert r.status_code == 200
    etree.fromstring(r.content)  # well-formed


def test_a_client_meets_the_errors_of_the_spec(client: TestClient, entry: dict[str, Any]) -> None:
    nav, doc = entry["navigation"], entry["document"]
    for url, status in [
        (expand(nav), 400),                                         # no resource
        (expand(nav, resource="xiangsheli"), 400),                  # no down, no ref
        (expand(nav, resource="xiangsheli", down=0), 400),          # down=0 without ref
        (expand(nav, resource="xiangsheli", ref="16", start="16", end="17"), 400),
        (expand(nav, resource="xiangsheli", start="16"), 400),      # start without end
        (expand(nav, resource="xiangsheli", ref="99999"), 404),
        (expand(nav, resource="no-such-chapter", down=1), 404),
        (expand(nav, resource="xiangsheli", ref="16", tree="no-such-tree"), 404),
        (expand(doc), 400),
        (expand(doc, resource="xiangsheli", ref="99999"), 404),
        (expand(doc, resource="xiangsheli", ref="16", mediaType="application/x-nothing"), 404),
        (expand(entry["collection"], id="no-such-collection"), 404),
    ]:
        r = client.get(url)
        assert r.status_code == status, (url, r.status_code, r.text[:200])
        assert r.json()["message"], url
