import json, random, datetime
random.seed(7)
OUT = "/tmp/s40/probe-c/corpus/"
# building -> (meter, campus, year_built, manager, type)
B = {
 "Brennan Lab":      ("AB-104", "Main",      1968, "Tom Hartley",   "laboratory"),
 "Hartley Hall":     ("AB-140", "Carver",    1994, "Aoife Brennan", "residential"),
 "Okafor Library":   ("AB-014", "Main",      2009, "Sam Whitmore",  "library"),
 "Whitmore Centre":  ("CW-220", "Riverside", 2015, "Aoife Brennan", "teaching"),
 "Lindqvist Annex":  ("LA-505", "Carver",    1987, "Sam Whitmore",  "teaching"),
 "Patel Institute":  ("PI-220", "Riverside", 2023, "Nadia Osei",    "laboratory"),
}
months = ["2022-11","2022-12","2023-01","2023-03","2023-06","2023-09","2023-12","2024-01","2024-02"]
readers = ["Liam Brennan", "Jo Carver", "Ravi Patel"]
suppliers = {"Main": "Voltera", "Carver": "Northgrid Power", "Riverside": "Brightwave Energy"}
tariffs = ["Standard", "Peak-Offpeak", "Green Flex", "Legacy Fixed"]
systems_pool = ["HVAC", "boiler", "chiller", "lighting", "solar inverter", "elevator", "fume hoods"]
MN = ["January","February","March","April","May","June","July","August","September","October","November","December"]
recs = []
n = 1001
plan = [(b, m) for b in B for m in months]
random.shuffle(plan)
plan = sorted(plan[:40], key=lambda x: (x[1], x[0]))
for b, m in plan:
    meter, campus, yb, mgr, btype = B[b]
    y, mo = int(m[:4]), int(m[5:])
    # reading date: 2-6 days into the following month
    ny, nm = (y + 1, 1) if mo == 12 else (y, mo + 1)
    rd = datetime.date(ny, nm, random.randint(2, 6))
    base = {"laboratory": 52000, "residential": 30000, "library": 24000, "teaching": 18000}[btype]
    season = 1.25 if mo in (12, 1, 2) else (1.1 if mo in (6,) else 1.0)
    kwh = int(round(base * season * random.uniform(0.85, 1.15), -1))
    if b == "Patel Institute": tariff = "Green Flex"
    elif b == "Brennan Lab": tariff = "Peak-Offpeak"
    elif b == "Hartley Hall": tariff = "Legacy Fixed" if y == 2022 else "Standard"
    else: tariff = random.choice(["Standard", "Peak-Offpeak"])
    rate = {"Standard": 0.15, "Peak-Offpeak": 0.17, "Green Flex": 0.19, "Legacy Fixed": 0.13}[tariff]
    cost = round(kwh * rate, 2)
    standing = {"Main": 120.0, "Carver": 95.0, "Riverside": 110.0}[campus]
    sysl = sorted(random.sample(systems_pool if btype == "laboratory" else systems_pool[:6], random.randint(1, 3)))
    recs.append(dict(bill_id=f"EB-{n}", building=b, meter_code=meter, campus=campus, billing_month=m,
                     reading_date=rd.isoformat(), year_built=yb, kwh=kwh, energy_cost=cost,
                     standing_charge=standing, tariff=tariff, supplier=suppliers[campus], manager=mgr,
                     read_by=random.choice(readers), systems_serviced=sysl, building_type=btype))
    n += 1
# --- traps: ties, missing values, codes ---
def R(i): return recs[i]
# tie on highest kwh: make two lab bills equal at the max
labs = [r for r in recs if r["building_type"] == "laboratory"]
mx = max(r["kwh"] for r in recs) + 1000
top2 = sorted(labs, key=lambda r: -r["kwh"])[:2]
for r in top2:
    r["kwh"] = mx
    rate = {"Standard": 0.15, "Peak-Offpeak": 0.17, "Green Flex": 0.19, "Legacy Fixed": 0.13}[r["tariff"]]
    r["energy_cost"] = round(r["kwh"] * rate, 2)
# tie on lowest energy cost: two bills
srt = sorted(recs, key=lambda r: r["energy_cost"])
srt[1]["energy_cost"] = srt[0]["energy_cost"]
# missing values
missing = {5: ["manager"], 11: ["kwh"], 17: ["standing_charge"], 23: ["supplier", "read_by"], 29: ["manager"], 34: ["systems_serviced"]}
for i, keys in missing.items():
    for k in keys: recs[i][k] = None
# estimated readings and notes only in text
notes = {3: "The reading was estimated because the meter cupboard was locked during the visit.",
         11: "No consumption figure is available: the meter display failed and the bill charges only the estimated energy cost.",
         14: "A chiller fault caused a peak demand of 410 kW on 12 June.",
         20: "The reading was estimated because of a flooded plant room.",
         26: "Peak demand reached 385 kW during an exam-week heatwave.",
         31: "The bill was disputed by the manager and reissued once."}
def fmt_money(x): return f"${x:,.2f}"
def month_name(m): return f"{MN[int(m[5:])-1]} {m[:4]}"
lines = []
for i, r in enumerate(recs):
    parts = [f"Bill {r['bill_id']} covers {r['building']} (meter {r['meter_code']}) on the {r['campus']} campus for {month_name(r['billing_month'])}."]
    rd = datetime.date.fromisoformat(r["reading_date"])
    if r["read_by"] and i % 3 != 0:
        parts.append(f"The meter was read on {rd.day} {MN[rd.month-1]} {rd.year} by {r['read_by']}.")
    else:
        parts.append(f"The meter was read on {rd.day} {MN[rd.month-1]} {rd.year}.")
    if r["kwh"] is not None:
        parts.append(f"Consumption was {r['kwh']:,} kWh, with an energy cost of {fmt_money(r['energy_cost'])}.")
    else:
        parts.append(f"The energy cost was {fmt_money(r['energy_cost'])}.")
    if r["standing_charge"] is not None and i % 4 != 1:
        parts.append(f"A standing charge of {fmt_money(r['standing_charge'])} applies.")
    sup = f" from {r['supplier']}" if r["supplier"] else ""
    parts.append(f"It is billed on the {r['tariff']} tariff{sup}.")
    if r["manager"]:
        parts.append(f"The building manager is {r['manager']}.")
    if r["systems_serviced"]:
        parts.append("Systems serviced this month: " + ", ".join(r["systems_serviced"]) + ".")
    if i in notes: parts.append(notes[i])
    text = " ".join(parts)
    md = {k: v for k, v in r.items() if v is not None}
    lines.append(json.dumps({"id": r["bill_id"], "text": text, "metadata": md}))
    r["_text"] = text
open(OUT + "records.jsonl", "w").write("\n".join(lines) + "\n")
json.dump(recs, open("/tmp/s40/probe-c/records_full.json", "w"), indent=1)
schema = {
 "description": "Monthly energy bills of university campus buildings, one record per building and billing month",
 "attributes": [
  {"name": "bill_id", "type": "string", "kind": "identifier", "description": "identifier of the bill"},
  {"name": "building", "type": "string", "kind": "name", "description": "building the bill is for"},
  {"name": "meter_code", "type": "string", "kind": "category", "description": "code of the building's electricity meter"},
  {"name": "campus", "type": "string", "kind": "place", "description": "campus where the building is", "allowed_values": ["Main", "Carver", "Riverside"]},
  {"name": "billing_month", "type": "string", "kind": "category", "description": "month billed, as YYYY-MM"},
  {"name": "reading_date", "type": "date", "description": "date the meter was read"},
  {"name": "year_built", "type": "integer", "kind": "year", "description": "year the building was built"},
  {"name": "kwh", "type": "integer", "kind": "energy", "description": "electricity used in the billing month in kWh"},
  {"name": "energy_cost", "type": "float", "kind": "money", "unit": "dollar", "description": "energy cost of the month in dollars"},
  {"name": "standing_charge", "type": "float", "kind": "money", "unit": "dollar", "description": "fixed standing charge of the month in dollars"},
  {"name": "tariff", "type": "string", "kind": "category", "description": "tariff the bill is charged on", "allowed_values": tariffs},
  {"name": "supplier", "type": "string", "kind": "name", "description": "energy supplier"},
  {"name": "manager", "type": "string", "kind": "name", "description": "facilities manager responsible for the building"},
  {"name": "read_by", "type": "string", "kind": "name", "description": "meter reader who read the meter"},
  {"name": "systems_serviced", "type": "string[]", "description": "building systems serviced that month"},
  {"name": "building_type", "type": "string", "kind": "category", "description": "type of building", "allowed_values": ["laboratory", "residential", "library", "teaching"]}
 ]
}
json.dump(schema, open(OUT + "records.schema.json", "w"), indent=1)
print(len(recs))
