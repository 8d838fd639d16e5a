import json
# (case, courthouse, judge, plaintiff, defendant, type, status, filed, decided, claimed, awarded, attorneys, jury, extra, text_flags)
R = [
("CV-104","Central","Ruth Whitaker","Daniel Whitaker","Orion Logistics LLC","contract","judgment","2022-03-14","2023-01-20",48000,31500,["Maria Gonzalez","Peter Hale"],False,"The court found a partial breach of the delivery agreement and ordered Orion to pay for the late shipments only.","A"),
("CV-140","Whitaker","Marcus Lee","Tom Lee","Karen Lee","property","settled","2023-02-02","2023-09-11",120000,60000,["Alan Brooks","Maria Gonzalez"],False,"The siblings disputed ownership of a lake cabin inherited from their mother; they agreed to sell it and split the proceeds.","C"),
("CV-014","Lakeview","Anita Patel","Greenfield Apartments Inc","Priya Patel","landlord-tenant","judgment","2021-06-30","2021-11-05",8200,8200,["Jonah Reyes"],False,"The claim was for five months of unpaid rent; the hearing took place in Courtroom 2A.","A"),
("CV-041","Whitaker","Samuel Ortiz","Luis Ortiz","Brightway Motors","contract","dismissed","2022-09-19","2023-02-27",15500,0,["Peter Hale"],False,"The case was dismissed for lack of prosecution after the plaintiff missed two hearings.","C"),
("CV-401","Central","Grace Kim","Helen Park","City Transit Authority","tort","pending","2024-01-08",None,250000,None,["Alan Brooks","Sofia Marin"],True,"Helen Park alleges a slip-and-fall on an icy bus platform; a jury trial is scheduled for spring 2025.","A"),
("CV-210","Central","Ruth Whitaker","Northgate Bank","Edward Chen","contract","judgment","2021-02-11","2021-08-30",36000,36000,["Maria Gonzalez"],False,"A default judgment was entered because the defendant never filed an answer.","A"),
("CV-211","Lakeview","Marcus Lee","Sara Whitaker","Pinecrest HOA","property","settled","2022-05-03","2022-12-15",22000,None,["Jonah Reyes","Peter Hale"],False,"The dispute concerned a fence line; the settlement terms are confidential.","C"),
("CV-212","Whitaker","Anita Patel","Omar Haddad","Quickfix Repairs","small claims","judgment","2023-04-17","2023-06-02",4800,4800,[],False,"Omar Haddad paid for a furnace repair that was never completed. Both parties represented themselves.","A"),
("CV-213","Whitaker","Anita Patel","Lena Novak","Bella Cafe LLC","small claims","judgment","2023-07-21","2023-09-08",6500,3900,[],False,"Lena Novak sought the return of a catering deposit. Both parties represented themselves.","C"),
("CV-214","Central","Samuel Ortiz","Marco Rossi","Delta Staffing","employment","settled","2022-10-10","2023-05-19",90000,45000,["Sofia Marin","Alan Brooks"],False,"Marco Rossi claimed unpaid overtime over three years.","A"),
("CV-215","Lakeview","Grace Kim","Jasmine Cole","Riverbend Clinic","tort","judgment","2021-09-01","2023-03-30",250000,180000,["Alan Brooks","Maria Gonzalez","Victor Huang"],True,"A medical negligence claim over a delayed diagnosis; the jury deliberated for two days.","A"),
("CV-216","Central","Ruth Whitaker","Kevin Ortiz","Summit Insurance Co","contract","pending","2024-03-22",None,75000,None,["Victor Huang"],None,"Kevin Ortiz disputes the denial of a storm-damage insurance claim.","C"),
("CV-217","Whitaker","Marcus Lee","Apex Builders","Nora Kim","contract","judgment","2020-11-12","2022-01-14",140000,95000,["Peter Hale","Sofia Marin"],True,"Apex Builders sued for the unpaid balance of a home renovation.","A"),
("CV-218","Lakeview","Anita Patel","Rachel Green","Maple Grove Apartments","landlord-tenant","dismissed","2023-01-09","2023-03-01",3200,0,["Jonah Reyes"],False,"Rachel Green sought her security deposit; the case was dismissed because she filed in the wrong court.","C"),
("CV-219","Central","Grace Kim","Ben Foster","Ana Foster","property","pending","2023-11-30",None,58000,None,["Maria Gonzalez","Jonah Reyes"],False,"A dispute between former spouses over a jointly owned rental property.","A"),
("CV-220","Whitaker","Samuel Ortiz","Ivy Tran","Metro Gym","small claims","settled","2023-03-15","2023-04-20",2500,1800,[],False,"Ivy Tran sought a refund of a prepaid annual membership. Both parties represented themselves.","A"),
("CV-221","Lakeview","Ruth Whitaker","Lakeview Dental Group","Paul Stone","contract","judgment","2022-07-07","2023-01-20",27500,27500,["Victor Huang"],False,"The dental practice sued a former patient over an unpaid treatment plan.","A"),
("CV-222","Central","Marcus Lee","George Lee","Harbor Freight Lines","employment","judgment","2021-04-19","2022-06-10",64000,52000,["Sofia Marin"],True,"George Lee, a dispatcher, alleged wrongful termination after reporting safety violations.","C"),
("CV-223","Whitaker","Grace Kim","Dana White","Whitaker Plumbing Co","tort","settled","2022-02-28","2022-08-22",18000,12000,["Peter Hale"],False,"A burst pipe installed by the defendant flooded the plaintiff's basement.","A"),
("CV-224","Lakeview","Samuel Ortiz","Felix Wong","Sunrise Motors","contract","pending","2024-05-06",None,31500,None,["Alan Brooks"],False,"Felix Wong alleges he was sold a used car with a rolled-back odometer.","A"),
("CV-225","Central","Anita Patel","Mia Johnson","Crescent Realty","landlord-tenant","judgment","2023-08-14","2024-02-09",12000,7500,["Jonah Reyes","Victor Huang"],False,"Mia Johnson withheld rent over mold; the court reduced the rent owed.","C"),
("CV-226","Whitaker","Ruth Whitaker","Carlos Mendez","Vista Roofing","contract","dismissed","2021-12-01","2022-04-18",9500,0,["Maria Gonzalez"],False,"The case was dismissed at the plaintiff's request after the roof was repaired.","A"),
("CV-227","Lakeview","Marcus Lee","Hannah Brooks","Evan Brooks","tort","judgment","2022-06-20","2023-10-02",40000,22000,["Sofia Marin"],True,"Hannah Brooks was injured by her neighbour's dog.","A"),
("CV-228","Central","Grace Kim","Olivia Grant","Titan Fitness","small claims","judgment","2024-02-12","2024-04-01",7500,7500,[],False,"Olivia Grant was billed after cancelling her contract. Both parties represented themselves.","A"),
("CV-229","Whitaker","Samuel Ortiz","Patrick Doyle","Ellen Doyle","property","settled","2021-03-03","2021-10-29",85000,40000,["Alan Brooks","Victor Huang"],False,"The Doyle siblings disputed a family farm boundary.","C"),
("CV-230","Lakeview","Anita Patel","Nathan Price","Coastal Wireless","contract","judgment","2023-05-25","2024-01-16",19000,19000,["Peter Hale"],False,"Early termination fees were charged in breach of the service agreement.","A"),
("CV-231","Central","Ruth Whitaker","Sophie Turner","Greenfield Apartments Inc","landlord-tenant","settled","2022-11-08","2023-02-14",6000,2500,["Jonah Reyes"],False,"Sophie Turner sought repair costs for a broken heater.","A"),
("CV-232","Whitaker","Marcus Lee","Riverbend Clinic","Thomas Reed","contract","pending","2024-06-18",None,13250,None,["Maria Gonzalez"],None,"The clinic seeks payment for uninsured surgery costs.","C"),
("CV-233","Lakeview","Grace Kim","William Patel","Orion Logistics LLC","employment","dismissed","2023-09-05","2024-03-12",55000,0,["Victor Huang","Sofia Marin"],False,"William Patel alleged age discrimination; the claim was dismissed as time-barred.","A"),
("CV-234","Central","Samuel Ortiz","Amy Chen","Edward Chen","property","judgment","2020-08-17","2021-07-23",47000,47000,["Alan Brooks"],False,"Amy Chen sued her brother over the sale of their late father's house.","A"),
("CV-235","Whitaker","Anita Patel","Brian Scott","Lakeside Storage","small claims","dismissed","2024-04-03","2024-05-15",5200,0,[],False,"Brian Scott claimed damage to stored furniture. Both parties represented themselves.","C"),
("CV-236","Lakeview","Ruth Whitaker","Linda Moore","Pinecrest HOA","property","judgment","2021-10-14","2022-09-09",33000,15000,["Jonah Reyes","Peter Hale"],False,"Linda Moore challenged special assessments levied by the HOA.","A"),
("CV-237","Central","Marcus Lee","Quickfix Repairs","Omar Haddad","contract","settled","2023-06-29","2023-12-01",11000,6000,["Peter Hale"],False,"Quickfix Repairs sued Omar Haddad for defamation-related business losses after his online reviews.","A"),
("CV-238","Whitaker","Grace Kim","Jacob Miller","Summit Insurance Co","contract","judgment","2022-01-24","2023-06-30",200000,180000,["Sofia Marin","Maria Gonzalez"],True,"Jacob Miller sued over an unpaid fire insurance claim on his warehouse.","A"),
("CV-239","Lakeview","Samuel Ortiz","Rosa Ortiz","Brightway Motors","tort","pending","2024-07-30",None,26000,None,[],None,"Rosa Ortiz was injured when a loaner car's brakes failed.","A"),
("CV-240","Central",None,"Ethan Ward","Delta Staffing","employment","pending","2024-08-12",None,42000,None,["Alan Brooks"],None,"No judge has been assigned yet.","A"),
("CV-241","Whitaker","Ruth Whitaker","Maple Grove Apartments","Kyle Dunn","landlord-tenant","judgment","2020-05-11","2020-09-04",9800,9800,["Jonah Reyes"],False,"The landlord sought possession and back rent.","C"),
("CV-242","Lakeview","Marcus Lee","Zoe Adams","Lakeview Dental Group","tort","settled","2021-07-19","2022-03-25",16000,None,["Victor Huang"],False,"Zoe Adams alleged a botched root canal; the settlement amount was not disclosed.","A"),
("CV-243","Central","Anita Patel","Henry Whitaker","Coastal Wireless","small claims","judgment","2022-12-05","2023-01-20",3000,1500,[],False,"Henry Whitaker disputed roaming charges. Both parties represented themselves.","A"),
("CV-244","Whitaker","Grace Kim","Lucy Bell","Titan Fitness","contract","pending","2023-10-23",None,22000,None,["Maria Gonzalez","Peter Hale"],None,"Lucy Bell alleges a franchise agreement was breached.","C"),
]
KEYS = ["case_number","courthouse","judge","plaintiff","defendant","case_type","status","filing_date","decision_date","amount_claimed","amount_awarded","attorneys","jury_trial"]
def text(r):
    d = dict(zip(KEYS, r[:13])); extra, flag = r[13], r[14]
    j = f"before Judge {d['judge']}" if d['judge'] else "with no judge assigned"
    s = f"Case {d['case_number']}: {d['plaintiff']} v. {d['defendant']} is a {d['case_type']} case heard at the {d['courthouse']} courthouse {j}. "
    s += f"It was filed on {d['filing_date']}. {extra} "
    if flag == "A":  # fuller text: status + claimed, attorneys
        s += f"The plaintiff claimed ${d['amount_claimed']:,}. "
        if d['status'] == 'pending': s += "The case is still pending."
        else: s += f"The case ended in {d['status']} on {d['decision_date']}."
    # flag C: status, money and attorneys only in metadata
    return s.strip()
out = []
for r in R:
    d = dict(zip(KEYS, r[:13]))
    md = {k: v for k, v in d.items() if v is not None and v != []}
    out.append({"id": d["case_number"], "text": text(r), "metadata": md})
with open("corpus/records.jsonl","w") as f:
    for o in out: f.write(json.dumps(o)+"\n")
schema = {
 "description": "County civil court docket: one record per civil case",
 "attributes": [
  {"name":"case_number","type":"string","kind":"identifier","description":"docket number of the civil case, e.g. CV-104"},
  {"name":"courthouse","type":"string","kind":"place","allowed_values":["Whitaker","Central","Lakeview"],"description":"courthouse where the case is heard"},
  {"name":"judge","type":"string","kind":"name","description":"judge assigned to the case"},
  {"name":"plaintiff","type":"string","kind":"name","description":"party who filed the case"},
  {"name":"defendant","type":"string","kind":"name","description":"party who was sued"},
  {"name":"case_type","type":"string","kind":"category","allowed_values":["contract","tort","property","small claims","landlord-tenant","employment"],"description":"type of civil case"},
  {"name":"status","type":"string","kind":"category","allowed_values":["pending","settled","dismissed","judgment"],"description":"current status of the case"},
  {"name":"filing_date","type":"date","kind":"date","description":"date the case was filed"},
  {"name":"decision_date","type":"date","kind":"date","description":"date the case was decided, settled or dismissed"},
  {"name":"amount_claimed","type":"integer","kind":"money","unit":"dollar","minimum":0,"description":"amount claimed by the plaintiff in dollars"},
  {"name":"amount_awarded","type":"integer","kind":"money","unit":"dollar","minimum":0,"description":"amount awarded or agreed in settlement, in dollars"},
  {"name":"attorneys","type":"string[]","kind":"name","description":"attorneys who appeared in the case"},
  {"name":"jury_trial","type":"boolean","kind":"flag","description":"whether the case was tried before a jury"}
 ]
}
json.dump(schema, open("corpus/records.schema.json","w"), indent=1)
print(len(out))
