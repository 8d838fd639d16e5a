import json
R = json.load(open("/tmp/s40/probe-c/records_full.json"))
Qs = []
def Q(kind, coll, q, exp): Qs.append(dict(kind=kind, collection=coll, question=q, expected=str(exp)))
def sel(**kw):
    out = []
    for r in R:
        ok = True
        for k, v in kw.items():
            if callable(v): ok = ok and v(r)
            else: ok = ok and r.get(k) == v
        if ok: out.append(r)
    return out
ids = lambda rs: ", ".join(r["bill_id"] for r in rs) if rs else "none"
def one(**kw):
    rs = sel(**kw); assert len(rs) == 1, (kw, len(rs)); return rs[0]
def bid(b): return one(bill_id=b)
B = "bills"; D = "energydocs"; BD = "bills+energydocs"
def bm(b, m): return one(building=b, billing_month=m)
def has(s): return lambda r: r["systems_serviced"] is not None and s in r["systems_serviced"]
def rd_year(y): return lambda r: r["reading_date"].startswith(str(y))
def bm_year(y): return lambda r: r["billing_month"].startswith(str(y))
# ---------------- factoid (bills)
Q("factoid",B,"What was the energy cost on bill EB-1017?", bid("EB-1017")["energy_cost"])
Q("factoid",B,"kwh EB-1023", bid("EB-1023")["kwh"])
Q("factoid",B,"Who read the meter for bill EB-1015?", bid("EB-1015")["read_by"])
Q("factoid",B,"Which building is meter AB-140?", "Hartley Hall")
Q("factoid",B,"Which building has meter AB-014?", "Okafor Library")
Q("factoid",B,"which building is on meter ab-104", "Brennan Lab")
Q("factoid",B,"Who manages Brennan Lab?", "Tom Hartley (one bill, EB-1006, records no manager)")
Q("factoid",B,"Who is the manager of Hartley Hall?", "Aoife Brennan")
Q("factoid",B,"What year was Brennan Lab built?", 1968)
Q("factoid",B,"when was the patel institute built", 2023)
Q("factoid",B,"What tariff was Hartley Hall on in December 2022?", bm("Hartley Hall","2022-12")["tariff"])
Q("factoid",B,"What supplier does the Carver campus use?", "Northgrid Power")
Q("factoid",B,"How many kWh did Okafor Library use in March 2023?", bm("Okafor Library","2023-03")["kwh"])
Q("factoid",B,"What was the energy cost of the Patel Institute in January 2024?", bm("Patel Institute","2024-01")["energy_cost"])
Q("factoid",B,"what campus is lindqvist annex on", "Carver")
Q("factoid",B,"Which meter code does the Whitmore Centre use?", "CW-220")
Q("factoid",B,"meter code of Patel Institute", "PI-220")
Q("factoid",B,"Who read meter AB-140 in January 2024?", one(meter_code="AB-140", billing_month="2024-01")["read_by"])
Q("factoid",B,"What month does bill EB-1026 cover?", "December 2023 (2023-12)")
Q("factoid",B,"Which building is bill EB-1012 for?", bid("EB-1012")["building"])
Q("factoid",B,"What type of building is Okafor Library?", "library")
Q("factoid",B,"Who supplies electricity to Hartley Hall?", "Northgrid Power (EB-1024 records no supplier)")
Q("factoid",B,"What is the standing charge on the Riverside campus?", "$110 (EB-1018 records none)")
Q("factoid",B,"Which tariff is Brennan Lab billed on?", "Peak-Offpeak")
Q("factoid",B,"energy cost brennan lab feb 2024", bm("Brennan Lab","2024-02")["energy_cost"])
Q("factoid",B,"What was the kWh on meter AB-104 in September 2023?", one(meter_code="AB-104", billing_month="2023-09")["kwh"])
Q("factoid",B,"What was the kWh on meter AB-140 in September 2023?", one(meter_code="AB-140", billing_month="2023-09")["kwh"])
Q("factoid",B,"Which building is managed by Tom Hartley?", "Brennan Lab")
Q("factoid",B,"Who is the manager of the Whitmore Centre?", "Aoife Brennan (EB-1030 records none)")
Q("factoid",B,"Who manages Okafor Library?", "Sam Whitmore")
Q("factoid",B,"Who read the meter at Hartley Hall in March 2023", bm("Hartley Hall","2023-03")["read_by"])
Q("factoid",B,"What was the standing charge on bill EB-1007?", bid("EB-1007")["standing_charge"])
Q("factoid",B,"What did EB-1004 cost?", f"energy cost {bid('EB-1004')['energy_cost']} (+ standing charge {bid('EB-1004')['standing_charge']})")
Q("factoid",B,"year built of the building on meter AB-014", 2009)
Q("factoid",B,"Who manages the Patel Institute?", "Nadia Osei")
Q("factoid",B,"What tariff is the Patel Institute on?", "Green Flex")
Q("factoid",B,"kWh for Whitmore Centre December 2023", bm("Whitmore Centre","2023-12")["kwh"])
Q("factoid",B,"Hartley Hall energy cost January 2024", bm("Hartley Hall","2024-01")["energy_cost"])
Q("factoid",B,"What is Okafor Library's standing charge?", 120.0)
Q("factoid",B,"bill id for Hartley Hall December 2023", bm("Hartley Hall","2023-12")["bill_id"])
Q("factoid",B,"Which bill covers the Patel Institute for September 2023?", bm("Patel Institute","2023-09")["bill_id"])
Q("factoid",B,"What peak demand did Hartley Hall reach in March 2023?", "410 kW (EB-1015 text)")
Q("factoid",B,"What peak demand did Lindqvist Annex reach in December 2023?", "385 kW (EB-1027 text)")
Q("factoid",B,"Which bill was disputed and reissued?", "EB-1032")
Q("factoid",B,"Who read the meter for EB-1002?", bid("EB-1002")["read_by"])
Q("factoid",B,"wich building did Jo Carver read in December 2023", ids(sel(read_by="Jo Carver", billing_month="2023-12")) + " = " + ", ".join(r["building"] for r in sel(read_by="Jo Carver", billing_month="2023-12")))
Q("factoid",B,"What is the building type of Lindqvist Annex?", "teaching")
# ---------------- count (bills)
Q("count",B,"How many bills are there for Brennan Lab?", len(sel(building="Brennan Lab")))
Q("count",B,"How many bills did Aoife Brennan manage?", len(sel(manager="Aoife Brennan")))
Q("count",B,"How many bills were read by Liam Brennan?", len(sel(read_by="Liam Brennan")))
Q("count",B,"How many bills are on the Green Flex tariff?", len(sel(tariff="Green Flex")))
Q("count",B,"how many bills on the carver campus", len(sel(campus="Carver")))
Q("count",B,"How many bills are for meter AB-104?", len(sel(meter_code="AB-104")))
Q("count",B,"How many bills are for meter AB-140?", len(sel(meter_code="AB-140")))
Q("count",B,"number of bills for meter AB-014", len(sel(meter_code="AB-014")))
Q("count",B,"How many bills are for buildings built before 1990?", len(sel(year_built=lambda r: r["year_built"] < 1990)))
Q("count",B,"How many bills had a reading date in 2023?", len(sel(reading_date=rd_year(2023))))
Q("count",B,"How many bills had an energy cost above $10,000?", len(sel(energy_cost=lambda r: r["energy_cost"] > 10000)))
Q("count",B,"How many bills used more than 50,000 kWh?", len(sel(kwh=lambda r: r["kwh"] is not None and r["kwh"] > 50000)))
Q("count",B,"How many bills had the chiller serviced?", len(sel(x=has("chiller"))))
Q("count",B,"How many bills had fume hoods serviced?", len(sel(x=has("fume hoods"))))
Q("count",B,"How many bills are from Voltera?", len(sel(supplier="Voltera")))
Q("count",B,"How many Standard tariff bills are on the Riverside campus?", len(sel(tariff="Standard", campus="Riverside")))
Q("count",B,"How many laboratory bills are there?", len(sel(building_type="laboratory")))
Q("count",B,"How many buildings does Aoife Brennan manage?", 2)
Q("count",B,"how many buildings are on the Main campus", 2)
Q("count",B,"How many bills were read by Jo Carver?", len(sel(read_by="Jo Carver")))
Q("count",B,"How many bills on the Carver campus were read by Jo Carver?", len(sel(read_by="Jo Carver", campus="Carver")))
Q("count",B,"How many bills had a standing charge of $95?", len(sel(standing_charge=95.0)))
Q("count",B,"How many bills are in the collection?", len(R))
Q("count",B,"How many bills does the Patel Institute have in 2023?", f"{len(sel(building='Patel Institute', billing_month=bm_year(2023)))} by billing month ({ids(sel(building='Patel Institute', billing_month=bm_year(2023)))}); {len(sel(building='Patel Institute', reading_date=rd_year(2023)))} by reading date")
Q("count",B,"How many Peak-Offpeak bills did Okafor Library have?", len(sel(building="Okafor Library", tariff="Peak-Offpeak")))
# ---------------- list (bills)
Q("list",B,"Which bills are on the Legacy Fixed tariff?", ids(sel(tariff="Legacy Fixed")))
Q("list",B,"Which bills had fume hoods serviced?", ids(sel(x=has("fume hoods"))))
Q("list",B,"Which buildings are on the Riverside campus?", "Patel Institute, Whitmore Centre")
Q("list",B,"Which bills had an energy cost over $13,000?", ids(sel(energy_cost=lambda r: r["energy_cost"] > 13000)))
Q("list",B,"Which bills used over 70,000 kWh?", ids(sel(kwh=lambda r: r["kwh"] is not None and r["kwh"] > 70000)))
Q("list",B,"show me bills for meter AB-014", ids(sel(meter_code="AB-014")))
Q("list",B,"Which Hartley Hall bills were read by Liam Brennan?", ids(sel(building="Hartley Hall", read_by="Liam Brennan")))
Q("list",B,"buildings built after 2000", "Okafor Library, Whitmore Centre, Patel Institute")
Q("list",B,"Which bills are for billing month 2023-06?", ids(sel(billing_month="2023-06")))
Q("list",B,"bills managed by Tom Hartley", ids(sel(manager="Tom Hartley")))
Q("list",B,"Which bills have no systems serviced recorded?", ids(sel(systems_serviced=lambda r: r["systems_serviced"] is None)))
Q("list",B,"Which buildings are laboratories?", "Brennan Lab, Patel Institute")
Q("list",B,"Which bills had an estimated reading?", "EB-1004, EB-1021 (text); EB-1012 charges an estimated cost")
Q("list",B,"Which bills had an energy cost under $2,500?", ids(sel(energy_cost=lambda r: r["energy_cost"] < 2500)))
Q("list",B,"Which bills on the Main campus were read by Jo Carver?", ids(sel(read_by="Jo Carver", campus="Main")))
Q("list",B,"Whitmore Centre bills with the solar inverter serviced", ids(sel(building="Whitmore Centre", x=has("solar inverter"))))
Q("list",B,"Which bills had the elevator serviced?", ids(sel(x=has("elevator"))))
Q("list",B,"which buildings does sam whitmore manage", "Okafor Library, Lindqvist Annex")
Q("list",B,"What systems were serviced on bill EB-1029?", ", ".join(bid("EB-1029")["systems_serviced"]))
Q("list",B,"List the Green Flex bills with more than 60,000 kWh", ids(sel(tariff="Green Flex", kwh=lambda r: r["kwh"] is not None and r["kwh"] > 60000)))
# ---------------- superlative (bills)
def top(key, rs, rev=True):
    rs = [r for r in rs if r[key] is not None]
    v = (max if rev else min)(r[key] for r in rs)
    w = [r for r in rs if r[key] == v]
    return f"{ids(w)} ({v})"
Q("superlative",B,"Which bill had the highest kWh?", top("kwh", R) + " tie")
Q("superlative",B,"Which bill had the lowest energy cost?", top("energy_cost", R, False) + " tie")
Q("superlative",B,"Which building is the oldest?", "Brennan Lab (1968)")
Q("superlative",B,"newest building", "Patel Institute (built 2023)")
Q("superlative",B,"Which bill had the most expensive energy cost?", top("energy_cost", R))
Q("superlative",B,"most expensive bill on the Carver campus", top("energy_cost", sel(campus="Carver")))
Q("superlative",B,"Which Hartley Hall bill used the most electricity?", top("kwh", sel(building="Hartley Hall")))
Q("superlative",B,"Which bill had the lowest kWh?", top("kwh", R, False))
Q("superlative",B,"Which Okafor Library bill had the highest energy cost?", top("energy_cost", sel(building="Okafor Library")))
Q("superlative",B,"Which bill has the latest reading date?", top("reading_date", R))
Q("superlative",B,"Which bill has the earliest reading date?", top("reading_date", R, False))
Q("superlative",B,"Which Standard tariff bill had the highest energy cost?", top("energy_cost", sel(tariff="Standard")))
Q("superlative",B,"Which Whitmore Centre bill had the lowest kWh?", top("kwh", sel(building="Whitmore Centre"), False))
Q("superlative",B,"the 3 cheapest bills by energy cost", ", ".join(f"{r['bill_id']} ({r['energy_cost']})" for r in sorted(R, key=lambda r: r["energy_cost"])[:3]))
Q("superlative",B,"Which bill read by Liam Brennan used the most kWh?", top("kwh", sel(read_by="Liam Brennan")))
Q("superlative",B,"which riverside bill used the least electricity", top("kwh", sel(campus="Riverside"), False))
# ---------------- yes/no (bills)
Q("yes_no",B,"Is Hartley Hall on the Carver campus?", "Yes")
Q("yes_no",B,"Is meter AB-104 in Hartley Hall?", "No (Brennan Lab; Hartley Hall is AB-140)")
Q("yes_no",B,"Does Tom Hartley manage Hartley Hall?", "No (Aoife Brennan does)")
Q("yes_no",B,"Is Aoife Brennan the manager of Brennan Lab?", "No (Tom Hartley)")
Q("yes_no",B,"Was the Patel Institute built in 2023?", "Yes")
Q("yes_no",B,"Did EB-1013 use more than 70,000 kWh?", "Yes (%s)" % bid("EB-1013")["kwh"])
Q("yes_no",B,"Did bill EB-1022 cost more than EB-1016?", "No (equal, %s each)" % bid("EB-1022")["energy_cost"])
Q("yes_no",B,"Is Okafor Library on the Peak-Offpeak tariff?", "Some bills: %s Peak-Offpeak, others Standard" % ids(sel(building="Okafor Library", tariff="Peak-Offpeak")))
Q("yes_no",B,"Was EB-1007 on the Legacy Fixed tariff?", "Yes")
Q("yes_no",B,"Was the Whitmore Centre ever on the Green Flex tariff?", "No")
Q("yes_no",B,"Did Liam Brennan read the meter for EB-1031?", "Yes" if bid("EB-1031")["read_by"] == "Liam Brennan" else "No")
Q("yes_no",B,"Are there any bills from Voltera on the Riverside campus?", "No")
Q("yes_no",B,"Was the chiller serviced at Brennan Lab in January 2024?", "Yes" if "chiller" in bm("Brennan Lab","2024-01")["systems_serviced"] else "No")
Q("yes_no",B,"Did Okafor Library ever have its fume hoods serviced?", "No")
Q("yes_no",B,"Was the standing charge for EB-1026 over $100?", "No (95)")
Q("yes_no",B,"Is Jo Carver a building manager?", "No (meter reader)")
Q("yes_no",B,"Does Lindqvist Annex have any bill with more than 30,000 kWh?", "No (max %s)" % max(r["kwh"] for r in sel(building="Lindqvist Annex") if r["kwh"]))
Q("yes_no",B,"Did Hartley Hall use more than 40,000 kWh in December 2022?", "Yes (%s)" % bm("Hartley Hall","2022-12")["kwh"])
# ---------------- negation (bills)
Q("negation",B,"Which buildings are not on the Main campus?", "Hartley Hall, Lindqvist Annex, Patel Institute, Whitmore Centre")
Q("negation",B,"Brennan Lab bills not read by Ravi Patel", ids(sel(building="Brennan Lab", read_by=lambda r: r["read_by"] != "Ravi Patel")))
Q("negation",B,"How many bills are not on the Standard tariff?", len(sel(tariff=lambda r: r["tariff"] != "Standard")))
Q("negation",B,"Which Patel Institute bills did not have the chiller serviced?", ids(sel(building="Patel Institute", x=lambda r: "chiller" not in (r["systems_serviced"] or []))))
Q("negation",B,"How many bills were not managed by Aoife Brennan?", f"{len(sel(manager=lambda r: r['manager'] not in (None, 'Aoife Brennan')))} with a recorded other manager (+2 with no manager recorded = {len(sel(manager=lambda r: r['manager'] != 'Aoife Brennan'))})")
Q("negation",B,"Which Hartley Hall bills were not on the Standard tariff?", ids(sel(building="Hartley Hall", tariff=lambda r: r["tariff"] != "Standard")))
Q("negation",B,"Which Whitmore Centre bills were not supplied by Brightwave Energy?", "none")
Q("negation",B,"buildings not built before 2000", "Okafor Library, Whitmore Centre, Patel Institute")
Q("negation",B,"How many Carver campus bills were not read by Jo Carver?", f"{len(sel(campus='Carver', read_by=lambda r: r['read_by'] not in (None,'Jo Carver')))} (+1, EB-1024, reader not recorded)")
Q("negation",B,"Which laboratory bills did not use more than 60,000 kWh?", ids(sel(building_type="laboratory", kwh=lambda r: r["kwh"] is not None and r["kwh"] <= 60000)))
# ---------------- date (bills)
Q("date",B,"When was the meter for bill EB-1035 read?", bid("EB-1035")["reading_date"])
Q("date",B,"What date was Hartley Hall's December 2022 meter reading?", bm("Hartley Hall","2022-12")["reading_date"])
Q("date",B,"Which bills were read after 5 March 2024?", ids(sel(reading_date=lambda r: r["reading_date"] > "2024-03-05")))
Q("date",B,"How many bills were read in January 2024?", len(sel(reading_date=lambda r: r["reading_date"].startswith("2024-01"))))
Q("date",B,"Which bills were read before 3 December 2022?", ids(sel(reading_date=lambda r: r["reading_date"] < "2022-12-03")))
Q("date",B,"bills read in 2022", ids(sel(reading_date=rd_year(2022))))
Q("date",B,"When was meter AB-014 read in July 2023?", one(meter_code="AB-014", reading_date=lambda r: r["reading_date"].startswith("2023-07"))["reading_date"])
Q("date",B,"What was the reading date for Okafor Library's December 2023 bill?", bm("Okafor Library","2023-12")["reading_date"])
Q("date",B,"How many bills for December 2023 were read in 2024?", len(sel(billing_month="2023-12", reading_date=rd_year(2024))))
Q("date",B,"Which bill had the latest reading date in 2023?", top("reading_date", sel(reading_date=rd_year(2023))))
# ---------------- comparison (bills)
Q("comparison",B,"Did Brennan Lab use more kWh than the Patel Institute in January 2024?", "No (%s vs %s)" % (bm("Brennan Lab","2024-01")["kwh"], bm("Patel Institute","2024-01")["kwh"]))
Q("comparison",B,"Which used more electricity in February 2024, Hartley Hall or Okafor Library?", "Hartley Hall (%s vs %s)" % (bm("Hartley Hall","2024-02")["kwh"], bm("Okafor Library","2024-02")["kwh"]))
Q("comparison",B,"Was EB-1016 cheaper than EB-1022?", "No (equal %s)" % bid("EB-1016")["energy_cost"])
Q("comparison",B,"Which cost more, EB-1029 or EB-1009?", "EB-1029 (%s vs %s)" % (bid("EB-1029")["energy_cost"], bid("EB-1009")["energy_cost"]))
Q("comparison",B,"Did EB-1006 use more kWh than EB-1013?", "No (equal %s)" % bid("EB-1006")["kwh"])
Q("comparison",B,"Which is older, Lindqvist Annex or Hartley Hall?", "Lindqvist Annex (1987 vs 1994)")
Q("comparison",B,"Which campus has the higher standing charge, Carver or Riverside?", "Riverside ($110 vs $95)")
Q("comparison",B,"Did AB-104 use more electricity than AB-140 in September 2023?", "Yes (44600 vs 31210)")
# ---------------- unanswerable (bills)
Q("unanswerable",B,"What is the standing charge on bill EB-1018?", "not recorded")
Q("unanswerable",B,"How much electricity did Lindqvist Annex use in January 2023?", "not recorded (EB-1012 has no kWh; cost $3,369.00)")
Q("unanswerable",B,"Who was the manager for bill EB-1030?", "not recorded")
Q("unanswerable",B,"Who read the meter for bill EB-1024?", "not recorded")
Q("unanswerable",B,"What was the energy cost on bill EB-1099?", "no such bill")
Q("unanswerable",B,"Which building has meter AB-041?", "no such meter")
Q("unanswerable",B,"How much electricity did the Carver Sports Hall use in 2023?", "no such building")
Q("unanswerable",B,"What was the gas consumption of Okafor Library in March 2023?", "not in data")
Q("unanswerable",B,"What was Brennan Lab's energy cost for May 2023?", "no bill for May 2023")
# ---------------- why (bills)
Q("why",B,"Why was the reading for EB-1021 estimated?", "because of a flooded plant room")
Q("why",B,"Why was bill EB-1004 estimated?", "the meter cupboard was locked during the visit")
# ================= prose
P = [
("factoid","What was the Standard tariff rate in 2022?","$0.14 per kWh"),
("factoid","standard tariff rate for laboratories 2023","$0.16 per kWh"),
("factoid","What did libraries pay per kWh on the Standard tariff in 2023?","$0.15 per kWh"),
("factoid","What is the Standard tariff rate in 2024?","$0.17 per kWh"),
("factoid","What is the 2024 peak rate on the Peak-Offpeak tariff?","$0.26 per kWh (the $0.25 draft was not adopted)"),
("factoid","off-peak rate 2023","$0.11 per kWh"),
("factoid","What is the Green Flex rate in 2024?","$0.20 per kWh"),
("factoid","What is the Legacy Fixed tariff rate?","$0.13 per kWh"),
("factoid","When was the Legacy Fixed tariff closed to new contracts?","2021"),
("factoid","What is the standing charge on the Carver campus?","$95 per month"),
("factoid","What standing charge did Carver campus residential halls pay until 2022?","$90"),
("factoid","What is the peak window in winter?","16:00 to 19:00 on weekdays, October to March"),
("factoid","peak hours in summer","13:00 to 17:00 on weekdays, April to September"),
("factoid","What is the demand charge per kW?","$8.50 per kW of peak demand above 300 kW"),
("factoid","What temperature is heating set back to in the evening?","16 °C"),
("factoid","What is the setback temperature during the winter closure?","12 °C"),
("factoid","What humidity must the Okafor Library archive stay at?","45 % to 55 % relative humidity"),
("factoid","What was the reading deadline in 2022?","10th working day of the following month"),
("factoid","What is the reading deadline from 2024?","5th working day of the following month"),
("factoid","What is the reporting deadline for residential halls?","the 20th of the following month"),
("factoid","Who is the Head of Facilities?","Tom Hartley"),
("factoid","Who supplied the Carver campus before October 2022?","Voltera"),
("factoid","When does the Riverside supply contract end?","December 2024"),
("factoid","What credit does the supplier pay for a late bill?","$250 per bill issued more than 14 days after the reading date"),
("factoid","How long are bills kept?","seven years"),
("factoid","Which meter register shows total import?","1.8.0"),
("factoid","Who is Brennan Lab named after?","the chemist Margaret Brennan"),
("factoid","What is the Carver campus named after?","the former Carver Farm"),
("count","How many meter readers are contracted?","three"),
("count","How many steps are there in the meter reading procedure?","7"),
("count","How many suppliers were shortlisted for the Riverside re-tender?","2 (Brightwave Energy, Northgrid Power)"),
("count","How many fume hoods does Brennan Lab have?","40"),
("count","how many students live in hartley hall","420"),
("list","Which buildings are exempt from the heating and cooling setback?","laboratories: Brennan Lab and the Patel Institute"),
("list","What tariffs does the university use?","Standard, Peak-Offpeak, Green Flex, Legacy Fixed"),
("list","Which suppliers were shortlisted for the Riverside contract?","Brightwave Energy and Northgrid Power"),
("list","What do the meter code prefixes mean?","AB Academic Block, CW Riverside west, LA Lindqvist Annex, PI Patel Institute"),
("list","What are the steps of the evening shutdown?","19:00 setback to 16/28 °C; corridor lighting 30 %; security checks projectors; 23:00 non-essential lighting off"),
("superlative","Which tariff has the highest unit rate in 2024?","Peak-Offpeak (peak rate $0.26)"),
("superlative","Which campus has the highest standing charge?","Main ($120)"),
("superlative","Which supplier contract started earliest?","Brightwave Energy, Riverside, January 2020"),
("superlative","What is the largest electricity consumer on the Main campus?","Brennan Lab"),
("yes_no","Is Liam Brennan related to Aoife Brennan?","No"),
("yes_no","Is the Carver campus named after Jo Carver?","No (after Carver Farm)"),
("yes_no","Was the $0.25 peak rate adopted?","No (draft never adopted; 2024 peak is $0.26)"),
("yes_no","Are weekends peak time?","No, always off-peak"),
("yes_no","Is the Green Flex tariff available from Voltera?","No, only from Brightwave Energy"),
("yes_no","Is floor-level sub-metering available in Okafor Library?","No, only in the Patel Institute"),
("yes_no","Did Hartley Hall move to the Standard tariff in 2023?","Yes, January 2023"),
("negation","Which campuses are not supplied by Voltera?","Carver (Northgrid Power) and Riverside (Brightwave Energy)"),
("negation","What is not set back in residential halls?","bedroom heating (only common areas are set back)"),
("date","When did the Northgrid Power contract for the Carver campus start?","October 2022"),
("date","Since when are readings due by the 5th working day?","January 2024"),
("comparison","Was the 2023 Standard rate higher for laboratories or libraries?","laboratories ($0.16 vs $0.15)"),
("comparison","Is the 2024 Green Flex rate higher than the 2024 Standard rate?","Yes ($0.20 vs $0.17)"),
("unanswerable","What is the gas tariff rate in 2024?","not stated"),
("unanswerable","What was the Standard tariff rate in 2021?","not stated"),
("unanswerable","Who is the CEO of Voltera?","not stated"),
("unanswerable","What was the Green Flex rate in 2022?","not stated (only 2023 and 2024 rates given)"),
("unanswerable","How many kWh does the Lindqvist Annex data closet use?","not stated"),
("unanswerable","What was the Peak-Offpeak peak rate in 2022?","not stated"),
("why","Why do peak charges apply?","the grid operator charges suppliers more when demand is highest; suppliers pass it on"),
("why","Why are laboratories exempt from the setback?","fume hoods need stable room pressure"),
("why","Why did the reading deadline change in 2024?","the new supplier contracts invoice earlier"),
("why","why do residential halls have a later deadline","readings are collected together with the halls' water meters"),
("why","Why should a meter cabinet with a broken seal not be opened?","a broken seal may mean tampering; the supplier must inspect it first"),
("how","How do I read a campus electricity meter?","check code, photograph, register 1.8.0, write digits, note date/time, estimated if unreadable, upload within 24h"),
("how","How is peak demand measured?","the highest 30-minute average in the month"),
("how","How are late readings estimated?","by the supplier from the same month of the previous year"),
("how","How do I dispute a wrong bill?","contact the building manager; after 30 days escalate to the Energy Office, which raises a dispute"),
("how","How does Okafor Library save money on Peak-Offpeak?","ice-based thermal storage runs chillers at night on off-peak power"),
]
for k, q, e in P: Q(k, D, q, e)
riv24 = len(sel(campus="Riverside", billing_month=bm_year(2024)))
T = [
("What tariff is Brennan Lab billed on, and what is that tariff's 2024 peak rate?","Peak-Offpeak; $0.26 per kWh"),
("Who manages Hartley Hall and what is the reading deadline for residential halls?","Aoife Brennan; the 20th of the following month"),
("Which supplier serves the Patel Institute, and which tariff is available only from it?","Brightwave Energy; Green Flex"),
("Which tariff was Hartley Hall on in December 2022, and when was that tariff closed to new contracts?","Legacy Fixed; 2021"),
("What is the meter code of Okafor Library and what does its prefix mean?","AB-014; AB = Academic Block estate"),
("Is Brennan Lab exempt from the evening setback, and who manages it?","Yes (laboratory); Tom Hartley"),
("Who is the Head of Facilities and which building does he manage?","Tom Hartley; Brennan Lab"),
("When does the Riverside supply contract end, and how many Riverside bills are for 2024 billing months?",f"December 2024; {riv24}"),
]
for q, e in T: Q("two_document", BD, q, e)
with open("/tmp/s40/probe-c/questions.jsonl", "w") as f:
    for i, q in enumerate(Qs, 1):
        f.write(json.dumps({"id": f"q{i:03d}", **q}) + "\n")
from collections import Counter
print(len(Qs), Counter(q["kind"] for q in Qs), Counter(q["collection"] for q in Qs))
