"""Generate the illustrative ``companies`` sample: a knowledge graph and dated news articles.

EVERYTHING HERE IS INVENTED. The organizations, people, places' roles, relationships, events and
figures are fictional and resemble no real company or person on purpose; only the cities and
countries are real places. Run from the repository root to regenerate (the output is committed):

    python -m selfrag.samples.companies._generate

Seeded: the same code writes the same files, byte for byte.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path
from typing import Any

__all__ = ["generate"]

SEED = 13
OUT = Path(__file__).resolve().parent

COUNTRIES = ["Germany", "France", "United States", "South Korea", "Japan", "United Kingdom", "Sweden",
             "Netherlands", "Italy", "Spain", "Canada", "India"]
# Other names and the adjective ("French companies"): how news and questions name a country.
COUNTRY_ALIASES = {
    "Germany": ["German"], "France": ["French"], "United States": ["USA", "US", "America", "American"],
    "South Korea": ["Korea", "Korean", "South Korean"], "Japan": ["Japanese"],
    "United Kingdom": ["UK", "Britain", "British"], "Sweden": ["Swedish"],
    "Netherlands": ["Holland", "The Netherlands", "Dutch"], "Italy": ["Italian"], "Spain": ["Spanish"],
    "Canada": ["Canadian"], "India": ["Indian"],
}
CITIES = {  # city -> country
    "Stuttgart": "Germany", "Munich": "Germany", "Berlin": "Germany",
    "Paris": "France", "Lyon": "France", "Toulouse": "France",
    "Austin": "United States", "Boston": "United States", "San Jose": "United States", "Detroit": "United States",
    "Seoul": "South Korea", "Ulsan": "South Korea", "Osaka": "Japan", "Nagoya": "Japan",
    "London": "United Kingdom", "Manchester": "United Kingdom", "Gothenburg": "Sweden", "Malmö": "Sweden",
    "Eindhoven": "Netherlands", "Rotterdam": "Netherlands", "Turin": "Italy", "Milan": "Italy",
    "Barcelona": "Spain", "Toronto": "Canada", "Bangalore": "India",
}

# name, aliases, industry, city
ORGS: list[tuple[str, list[str], str, str]] = [
    ("Mercury Motors", ["Mercury", "Mercury Motor Works"], "automotive", "Stuttgart"),
    ("Mercury Records", ["Mercury", "Mercury Music Group"], "record label", "London"),
    ("Atlas Freight", ["Atlas", "Atlas Freight Lines"], "logistics", "Rotterdam"),
    ("Atlas Capital", ["Atlas", "Atlas Capital Partners"], "investment", "Boston"),
    ("Halvard Motors", ["Halvard"], "automotive", "Ulsan"),
    ("Kestrel Automotive", ["Kestrel"], "automotive", "Detroit"),
    ("Norrland Trucks", ["Norrland"], "automotive", "Gothenburg"),
    ("Veltro Auto", ["Veltro"], "automotive", "Turin"),
    ("Brightcell Batteries", ["Brightcell"], "batteries", "Seoul"),
    ("Voltaic Cells", ["Voltaic"], "batteries", "Nagoya"),
    ("Ferrox Steel", ["Ferrox"], "steel", "Manchester"),
    ("Sorel Glass", ["Sorel"], "glass", "Lyon"),
    ("Dunmore Semiconductors", ["Dunmore", "Dunmore Semi"], "semiconductors", "San Jose"),
    ("Tessellate Chips", ["Tessellate"], "semiconductors", "Eindhoven"),
    ("Granite Tyres", ["Granite"], "tyres", "Milan"),
    ("Quanta Seating", ["Quanta"], "automotive interiors", "Barcelona"),
    ("Lumen Optics", ["Lumen"], "sensors", "Osaka"),
    ("Graphwise", ["Graphwise Inc."], "database software", "Malmö"),
    ("Cobalt Analytics", ["Cobalt"], "software", "Austin"),
    ("Nimbus Cloud", ["Nimbus"], "cloud software", "Boston"),
    ("Orchard Data", ["Orchard"], "software", "Toronto"),
    ("Paloma Labs", ["Paloma"], "artificial intelligence", "Paris"),
    ("Redwood Ventures", ["Redwood"], "venture capital", "San Jose"),
    ("Northstar Partners", ["Northstar"], "investment", "London"),
    ("Saffron Capital", ["Saffron"], "investment", "Bangalore"),
    ("Blue Fjord Invest", ["Blue Fjord"], "investment", "Gothenburg"),
    ("Helios Energy", ["Helios"], "energy", "Munich"),
    ("Verdant Power", ["Verdant"], "energy", "Toulouse"),
    ("Alto Aerospace", ["Alto"], "aerospace", "Toulouse"),
    ("Skyline Avionics", ["Skyline"], "avionics", "Toronto"),
    ("Ironbridge Logistics", ["Ironbridge"], "logistics", "Manchester"),
    ("Pacifica Shipping", ["Pacifica"], "shipping", "Ulsan"),
    ("Marlow Foods", ["Marlow"], "food", "London"),
    ("Costa Brava Foods", ["Costa Brava"], "food", "Barcelona"),
    ("Lark Retail", ["Lark"], "retail", "Berlin"),
    ("Bellamy & Co", ["Bellamy"], "retail", "Paris"),
    ("Opaline Pharma", ["Opaline"], "pharmaceuticals", "Lyon"),
    ("Sakura Robotics", ["Sakura"], "robotics", "Nagoya"),
    ("Tundra Robotics", ["Tundra"], "robotics", "Munich"),
    ("Cinder Games", ["Cinder"], "video games", "Toronto"),
    ("Harbor Bank", ["Harbor"], "banking", "Boston"),
    ("Rhine Insurance", ["Rhine"], "insurance", "Munich"),
    ("Solstice Media", ["Solstice"], "media", "London"),
    ("Echo Street Studios", ["Echo Street"], "music", "Austin"),
    ("Meridian Telecom", ["Meridian"], "telecommunications", "Milan"),
    ("Vantage Chemicals", ["Vantage"], "chemicals", "Rotterdam"),
]

PEOPLE = [
    "Rod Halverson", "Ingrid Solberg", "Marcus Feld", "Amara Okafor", "Kenji Watanabe", "Lucia Moretti",
    "Henrik Dahl", "Priya Raman", "Claire Dubois", "Tomasz Nowak", "Elena Vargas", "Samuel Achterberg",
    "Yuna Park", "Oliver Grant", "Fatima Haddad", "Daniel Reyes", "Sofia Lindqvist", "Arjun Mehta",
    "Beatrix Vogel", "Hugo Lefèvre", "Nadia Petrova", "Jonas Brandt", "Mei Tanaka", "Victor Osei",
    "Grace Whitfield", "Paolo Ricci", "Hana Kim", "Leon Mayer",
]

# Fixed relationships (the dev set leans on them; the rest is seeded random).
INVESTED_IN = {
    "Graphwise": ["Paloma Labs", "Orchard Data", "Cobalt Analytics"],
    "Redwood Ventures": ["Graphwise", "Nimbus Cloud", "Paloma Labs", "Cinder Games", "Lumen Optics"],
    "Atlas Capital": ["Brightcell Batteries", "Tundra Robotics", "Verdant Power", "Graphwise"],
    "Northstar Partners": ["Solstice Media", "Marlow Foods", "Mercury Records", "Echo Street Studios"],
    "Saffron Capital": ["Orchard Data", "Sakura Robotics", "Opaline Pharma"],
    "Blue Fjord Invest": ["Norrland Trucks", "Helios Energy", "Atlas Freight"],
    "Harbor Bank": ["Kestrel Automotive", "Ironbridge Logistics"],
    "Mercury Motors": ["Brightcell Batteries", "Lumen Optics"],
    "Halvard Motors": ["Voltaic Cells"],
    "Nimbus Cloud": [],
}
SUPPLIES = {
    "Brightcell Batteries": ["Halvard Motors", "Mercury Motors", "Kestrel Automotive"],
    "Voltaic Cells": ["Halvard Motors", "Veltro Auto", "Sakura Robotics"],
    "Ferrox Steel": ["Halvard Motors", "Norrland Trucks", "Kestrel Automotive", "Alto Aerospace"],
    "Sorel Glass": ["Mercury Motors", "Veltro Auto"],
    "Dunmore Semiconductors": ["Halvard Motors", "Kestrel Automotive", "Skyline Avionics", "Tundra Robotics"],
    "Tessellate Chips": ["Mercury Motors", "Meridian Telecom", "Sakura Robotics"],
    "Granite Tyres": ["Veltro Auto", "Mercury Motors", "Norrland Trucks"],
    "Quanta Seating": ["Halvard Motors", "Veltro Auto"],
    "Lumen Optics": ["Mercury Motors", "Tundra Robotics", "Sakura Robotics"],
    "Vantage Chemicals": ["Opaline Pharma", "Brightcell Batteries"],
    "Atlas Freight": ["Lark Retail", "Costa Brava Foods"],
    "Pacifica Shipping": ["Halvard Motors", "Brightcell Batteries"],
    "Skyline Avionics": ["Alto Aerospace"],
    "Helios Energy": ["Ferrox Steel"],
}
COMPETES_WITH = [
    ("Mercury Motors", "Halvard Motors"), ("Mercury Motors", "Veltro Auto"), ("Halvard Motors", "Kestrel Automotive"),
    ("Brightcell Batteries", "Voltaic Cells"), ("Dunmore Semiconductors", "Tessellate Chips"),
    ("Nimbus Cloud", "Cobalt Analytics"), ("Graphwise", "Orchard Data"), ("Sakura Robotics", "Tundra Robotics"),
    ("Mercury Records", "Echo Street Studios"), ("Lark Retail", "Bellamy & Co"), ("Marlow Foods", "Costa Brava Foods"),
    ("Atlas Freight", "Ironbridge Logistics"), ("Helios Energy", "Verdant Power"),
]
CEO = {  # the first boards are fixed too
    "Ingrid Solberg": "Norrland Trucks", "Kenji Watanabe": "Sakura Robotics", "Claire Dubois": "Paloma Labs",
    "Yuna Park": "Halvard Motors", "Jonas Brandt": "Mercury Motors", "Grace Whitfield": "Mercury Records",
    "Henrik Dahl": "Graphwise", "Arjun Mehta": "Saffron Capital",
}
BOARDS = {
    "Rod Halverson": ["Graphwise", "Nimbus Cloud", "Cobalt Analytics", "Harbor Bank"],
    "Amara Okafor": ["Mercury Motors", "Brightcell Batteries"],
    "Lucia Moretti": ["Veltro Auto", "Meridian Telecom", "Granite Tyres"],
    "Ingrid Solberg": [],
}

TOPICS: list[tuple[str, float, list[str]]] = [
    # (topic, sentiment sign, templates); {org}, {city}, {person}, {n}, {m}, {partner} are filled in.
    ("work-from-home policy", 1.0, [
        "{org} will let office staff work from home up to three days a week, the company said on {weekday}. "
        "The policy follows a pilot at its {city} headquarters in which {hi} percent of employees took part. "
        "\"People told us they get more done with fewer commutes,\" chief executive {person} said.",
        "{org} has made its hybrid arrangement permanent. Employees in {city} can now choose two fixed office days, "
        "and the company is converting one floor into bookable project rooms. Staff surveys cited in the announcement "
        "show satisfaction with the new work-from-home policy at {hi} percent.",
    ]),
    ("work-from-home policy", -1.0, [
        "{org} ordered all staff back to the office five days a week, ending its remote-work policy. "
        "Employee representatives in {city} called the decision abrupt and said {hi} percent of staff opposed it. "
        "Several team leads have resigned since the memo went out on {weekday}.",
        "A leaked memo shows {org} will cut its work-from-home allowance from three days to none by next quarter. "
        "Workers in {city} said they learned about the change from the press, and an internal petition against it "
        "has gathered {m} signatures.",
    ]),
    ("supply chain problems", -1.0, [
        "{org} warned that a shortage of parts from {partner} will slow deliveries for at least {n} weeks. "
        "The company said its {city} plant is running below capacity and that it is looking for second sources.",
        "Supply chain problems hit {org} again this quarter: late shipments from {partner} left {m} units unfinished "
        "at its {city} site. Executives expect the backlog to clear only after {n} weeks.",
        "{org} said port congestion and a fire at a supplier's warehouse disrupted its supply chain. "
        "Production in {city} was halted for {n} days, and the company cut its delivery forecast.",
    ]),
    ("employee happiness", 1.0, [
        "Employees at {org} rate their employer highly: an independent survey of {m} staff found {hi} percent "
        "would recommend the company to a friend, up sharply from last year. Workers in {city} praised "
        "training budgets and flexible hours.",
        "{org} was named one of the best places to work in its region. Staff in {city} pointed to a new "
        "profit-sharing plan and a four-day week trial that {person} introduced last spring.",
    ]),
    ("employee happiness", -1.0, [
        "Morale at {org} has slumped, according to an internal survey in which only {lo} percent of employees said they "
        "were happy at work. Staff in {city} complained of unpaid overtime and unclear promotion rules.",
        "Unhappy employees at {org} staged a walkout in {city} on {weekday}, demanding better pay and fewer late shifts. "
        "Union officials said {m} workers joined the protest.",
    ]),
    ("quarterly results", 1.0, [
        "{org} beat analyst expectations with quarterly revenue up {n} percent, driven by strong demand in its "
        "core {industry} business. Shares rose in early trading after {person} raised the full-year outlook.",
        "Record orders lifted {org}'s third-quarter profit by {n} percent. The company said its {city} operations "
        "had their best quarter since opening, and it plans to hire {m} more people.",
    ]),
    ("quarterly results", -1.0, [
        "{org} reported a quarterly loss as {industry} sales fell {n} percent. The company withdrew its annual "
        "guidance and said it would review costs at its {city} headquarters.",
        "Profits at {org} dropped {n} percent in the last quarter, missing forecasts. {person} blamed weak demand "
        "and higher input prices, and warned that the next two quarters will be difficult.",
    ]),
    ("product launch", 1.0, [
        "{org} unveiled its newest product line at an event in {city}, the first major launch in {n} years. "
        "Early reviews were enthusiastic, and pre-orders passed {m} in the first week.",
        "{org} launched a new {industry} platform that it developed with {partner}. {person} called it "
        "\"the most important release in the company's history\".",
    ]),
    ("layoffs", -1.0, [
        "{org} will cut {m} jobs, about {n} percent of its workforce, as part of a restructuring plan. "
        "Most of the positions are in {city}. Employees were told of the layoffs in a video call on {weekday}.",
        "A second round of layoffs at {org} will affect {m} employees. The company said the cuts are needed to "
        "protect margins in a weak {industry} market.",
    ]),
    ("product recall", -1.0, [
        "{org} is recalling {m} products after finding a defect in a component supplied by {partner}. "
        "Regulators opened an inquiry, and the company set aside money for repairs.",
    ]),
    ("partnership and investment", 1.0, [
        "{org} and {partner} signed a multi-year partnership to develop {industry} products together. "
        "The deal includes an investment of {n} million euros and a joint team in {city}.",
        "{partner} took a minority stake in {org}, valuing the company at {m} million dollars. "
        "{person} said the money will fund expansion beyond {city}.",
    ]),
    ("expansion", 1.0, [
        "{org} will open a new site near {city}, creating {m} jobs over the next {n} years. "
        "Local officials welcomed the investment.",
        "{org} is expanding into three new markets after a strong year, and plans to double its team in {city}.",
    ]),
    ("lawsuit", -1.0, [
        "{org} faces a lawsuit from former employees who allege unpaid wages at its {city} offices. "
        "The claim seeks damages for {m} workers; the company said it will defend itself.",
        "Regulators fined {org} {n} million euros over misleading statements to customers. "
        "{person} apologised and promised an external review.",
    ]),
    ("leadership change", 0.0, [
        "{org} named a new chief financial officer, effective next month. {person} thanked the outgoing CFO "
        "for {n} years of service at the {city} headquarters.",
    ]),
]
HEADLINES: dict[tuple[str, float], list[str]] = {
    ("work-from-home policy", 1.0): ["{org} makes hybrid work permanent", "{org} lets staff work from home three days a week"],
    ("work-from-home policy", -1.0): ["{org} orders staff back to the office", "{org} scraps remote-work policy"],
    ("supply chain problems", -1.0): ["Parts shortage slows {org}", "{org} hit by supply chain disruption"],
    ("employee happiness", 1.0): ["{org} staff give employer top marks", "{org} named a best place to work"],
    ("employee happiness", -1.0): ["Morale slumps at {org}", "Unhappy workers walk out at {org}"],
    ("quarterly results", 1.0): ["{org} beats forecasts", "Record orders lift {org} profit"],
    ("quarterly results", -1.0): ["{org} swings to a loss", "{org} profit falls short"],
    ("product launch", 1.0): ["{org} unveils new product line", "{org} launches new platform"],
    ("layoffs", -1.0): ["{org} to cut jobs", "New round of layoffs at {org}"],
    ("product recall", -1.0): ["{org} recalls products over defect"],
    ("partnership and investment", 1.0): ["{org} and {partner} sign partnership", "{partner} takes stake in {org}"],
    ("expansion", 1.0): ["{org} to open new site near {city}", "{org} expands into new markets"],
    ("lawsuit", -1.0): ["{org} sued by former employees", "Regulators fine {org}"],
    ("leadership change", 0.0): ["{org} names new finance chief"],
}
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-").replace("--", "-")


def _graph(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    ids: dict[str, str] = {}
    for country in COUNTRIES:
        ids[country] = f"country:{_slug(country)}"
        nodes.append({"id": ids[country], "label": "Country", "name": country,
                      "aliases": COUNTRY_ALIASES.get(country, [])})
    for city, country in CITIES.items():
        ids[city] = f"city:{_slug(city)}"
        nodes.append({"id": ids[city], "label": "City", "name": city, "aliases": []})
        edges.append({"source": ids[city], "type": "IN_COUNTRY", "target": ids[country]})
    for name, aliases, industry, city in ORGS:
        ids[name] = f"org:{_slug(name)}"
        nodes.append({"id": ids[name], "label": "Organization", "name": name, "aliases": aliases,
                      "properties": {"industry": industry, "country": CITIES[city], "founded": rng.randint(1921, 2019)}})
        edges.append({"source": ids[name], "type": "LOCATED_IN", "target": ids[city]})
    for person in PEOPLE:
        ids[person] = f"person:{_slug(person)}"
        nodes.append({"id": ids[person], "label": "Person", "name": person, "aliases": []})
    for investor, targets in INVESTED_IN.items():
        for t in targets:
            edges.append({"source": ids[investor], "type": "INVESTED_IN", "target": ids[t],
                          "properties": {"year": rng.randint(2015, 2025)}})
    for supplier, customers in SUPPLIES.items():
        for c in customers:
            edges.append({"source": ids[supplier], "type": "SUPPLIES", "target": ids[c]})
    for a, b in COMPETES_WITH:
        edges.append({"source": ids[a], "type": "COMPETES_WITH", "target": ids[b]})
    boards: dict[str, list[str]] = {p: list(o) for p, o in BOARDS.items()}
    org_names = [o[0] for o in ORGS]
    for person in PEOPLE:
        if person not in boards:
            boards[person] = rng.sample(org_names, rng.randint(1, 3))
    for person, orgs in boards.items():
        for org in orgs:
            edges.append({"source": ids[person], "type": "BOARD_MEMBER_OF", "target": ids[org]})
    ceos = dict(CEO)
    free = [p for p in PEOPLE if p not in ceos]
    for org in org_names:
        if org not in ceos.values():
            ceos[free.pop(0) if free else rng.choice(PEOPLE)] = org
    for person, org in ceos.items():
        edges.append({"source": ids[person], "type": "CEO_OF", "target": ids[org]})
    return nodes, edges, {name: person for person, name in ceos.items()}


def _articles(rng: random.Random, ceo_of: dict[str, str]) -> list[dict[str, Any]]:
    partners: dict[str, list[str]] = {}
    for supplier, customers in SUPPLIES.items():
        for c in customers:
            partners.setdefault(c, []).append(supplier)
            partners.setdefault(supplier, []).append(c)
    for investor, targets in INVESTED_IN.items():
        for t in targets:
            partners.setdefault(t, []).append(investor)
    orgs = {o[0]: o for o in ORGS}
    start = date(2024, 1, 8)
    out: list[dict[str, Any]] = []
    order = [o[0] for o in ORGS] * 3
    rng.shuffle(order)
    for i, org in enumerate(order[:130]):
        _, _, industry, city = orgs[org]
        suppliers = [sup for sup, customers in SUPPLIES.items() if org in customers]
        while True:
            topic, sign, templates = rng.choice(TOPICS)
            # Only makers with suppliers have supply problems or recalls of supplied parts.
            if topic not in ("supply chain problems", "product recall") or suppliers:
                break
        template = rng.choice(templates)
        pool = suppliers if topic in ("supply chain problems", "product recall") else partners.get(org, [])
        partner = rng.choice(pool or [o for o in orgs if o != org]) if "{partner}" in template else None
        text = template.format(
            org=org, city=city, industry=industry, partner=partner or "", weekday=rng.choice(WEEKDAYS),
            person=ceo_of.get(org, "the chief executive"), n=rng.randint(3, 40), m=rng.randint(120, 4800),
            hi=rng.randint(55, 92), lo=rng.randint(18, 45),
        )
        sentiment = round(sign * rng.uniform(0.55, 0.95), 2) if sign else round(rng.uniform(-0.2, 0.2), 2)
        day = start + timedelta(days=int(i * 5.5) + rng.randint(0, 4))
        mentioned = [org] + ([partner] if partner else [])
        title = rng.choice(HEADLINES[(topic, sign)]).format(org=org, city=city, partner=partner or "")
        out.append({"id": f"news-{i + 1:03d}", "text": f"{title}. {text}",
                    "metadata": {"title": title, "date": day.isoformat(), "sentiment": sentiment,
                                 "topic": topic, "organizations": mentioned}})
    return out


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def generate(out: Path = OUT) -> None:
    """Write ``graph/nodes.jsonl``, ``graph/edges.jsonl`` and ``articles.jsonl`` under ``out``."""
    rng = random.Random(SEED)
    nodes, edges, ceo_of = _graph(rng)
    _write_jsonl(out / "graph" / "nodes.jsonl", nodes)
    _write_jsonl(out / "graph" / "edges.jsonl", edges)
    _write_jsonl(out / "articles.jsonl", _articles(rng, ceo_of))


if __name__ == "__main__":
    generate()
