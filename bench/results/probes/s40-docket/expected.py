import json, collections
D = [json.loads(l)["metadata"] for l in open("corpus/records.jsonl")]
T = {json.loads(l)["id"]: json.loads(l)["text"] for l in open("corpus/records.jsonl")}
C = {d["case_number"]: d for d in D}
def sel(p): return sorted(d["case_number"] for d in D if p(d))
def g(c, k): return C[c].get(k)
def yr(d, k): return d.get(k, "")[:4] if d.get(k) else None
def lst(xs): return f"{len(xs)}: " + ", ".join(xs)
def att(d): return d.get("attorneys", [])
def top(k, p=lambda d: True, lo=False):
    xs = [d for d in D if p(d) and d.get(k) is not None]
    m = (min if lo else max)(d[k] for d in xs)
    return f"{', '.join(sorted(d['case_number'] for d in xs if d[k]==m))} ({k}={m})"
Q = []
def q(kind, question, expected, coll="docket"):
    Q.append({"id": f"q{len(Q)+1:03d}", "collection": coll, "kind": kind, "question": question, "expected": str(expected)})
S = "docket"
# ---------- structured factoid
q("factoid","Who is the judge on CV-104?", g("CV-104","judge"))
q("factoid","who is the judge in case CV-140", g("CV-140","judge"))
q("factoid","CV-014 judge", g("CV-014","judge"))
q("factoid","Which courthouse is CV-041 heard at?", g("CV-041","courthouse"))
q("factoid","What was the amount claimed in CV-401?", g("CV-401","amount_claimed"))
q("factoid","How much was awarded in CV-140?", g("CV-140","amount_awarded"))
q("factoid","amount awarded CV-104", g("CV-104","amount_awarded"))
q("factoid","Who is the plaintiff in CV-221?", g("CV-221","plaintiff"))
q("factoid","Who is the defendant in CV-223?", g("CV-223","defendant"))
q("factoid","What is the status of CV-216?", g("CV-216","status"))
q("factoid","What type of case is CV-243?", g("CV-243","case_type"))
q("factoid","When was CV-238 filed?", g("CV-238","filing_date"))
q("factoid","Who are the attorneys in CV-215?", ", ".join(g("CV-215","attorneys")))
q("factoid","What was the amount awarded in CV-211?", "not recorded (settlement terms confidential)")
q("factoid","Who is the judge for CV-240?", "no judge assigned yet")
q("factoid","What courtroom was the hearing in CV-014 held in?", "Courtroom 2A")
q("factoid","Which courthouse hears case CV-401", g("CV-401","courthouse"))
q("factoid","Which judge handled Daniel Whitaker's case?", "Ruth Whitaker (CV-104)")
q("factoid","Who sued Karen Lee?", "Tom Lee (CV-140)")
q("factoid","Who did Henry Whitaker sue?", "Coastal Wireless (CV-243)")
q("factoid","Which courthouse was Sara Whitaker's case heard at?", "Lakeview (CV-211)")
q("factoid","What did Omar Haddad sue Quickfix Repairs over?", "a furnace repair he paid for that was never completed (CV-212)")
q("factoid","amount claimed by Jacob Miller", "200000 (CV-238)")
q("factoid","Who was the defendant in the case filed by Amy Chen?", "Edward Chen (CV-234)")
q("factoid","cv-230 status", g("CV-230","status"))
q("factoid","How much did Apex Builders claim?", "140000 (CV-217)")
q("factoid","How much was awarded to Jasmine Cole?", "180000 (CV-215)")
q("factoid","Who is the judge in the case brought by George Lee?", "Marcus Lee (CV-222)")
q("factoid","What is the case number of Helen Park's case?", "CV-401")
q("factoid","Whitaker Plumbing Co was sued by whom?", "Dana White (CV-223)")
q("factoid","Who is the plaintiff in CV-014", g("CV-014","plaintiff"))
q("factoid","defendent in cv-212", g("CV-212","defendant"))
q("factoid","When was the case against Nora Kim decided?", "2022-01-14 (CV-217)")
q("factoid","What happened in CV-239?", "Rosa Ortiz was injured when a loaner car's brakes failed; tort vs Brightway Motors, pending")
q("factoid","What is the amount awarded in CV-401?", "none: the case is pending, no award recorded")
q("factoid","Which judge is assigned to Kevin Ortiz's case?", "Ruth Whitaker (CV-216)")
q("factoid","Who is the judge for Luis Ortiz v. Brightway Motors?", "Samuel Ortiz (CV-041)")
q("factoid","What was the claimed amount in case CV-041?", g("CV-041","amount_claimed"))
q("factoid","What was the claimed amount in case CV-014?", g("CV-014","amount_claimed"))
q("factoid","how much was claimed in CV-140", g("CV-140","amount_claimed"))
q("factoid","What kind of case is Ben Foster v. Ana Foster?", "property (CV-219)")
q("factoid","How long did the jury deliberate in CV-215?", "two days")
q("factoid","Who is the defendant in the Whitaker case CV-104?", "Orion Logistics LLC")
q("factoid","which judge sits on the case against Priya Patel", "Anita Patel (CV-014)")
q("factoid","What is the decision date of CV-233?", g("CV-233","decision_date"))
q("factoid","Who was the defendant in Lakeview Dental Group's lawsuit?", "Paul Stone (CV-221)")
q("factoid","Who sued Lakeview Dental Group?", "Zoe Adams (CV-242)")
q("factoid","amount claimed CV-410", "no such case (near codes CV-401/CV-140)")
# ---------- structured count
q("count","How many cases are pending?", len(sel(lambda d: d["status"]=="pending")))
q("count","How many cases were heard at the Whitaker courthouse?", len(sel(lambda d: d["courthouse"]=="Whitaker")))
q("count","How many cases has Judge Ruth Whitaker handled?", len(sel(lambda d: d.get("judge")=="Ruth Whitaker")))
q("count","How many small claims cases are there?", len(sel(lambda d: d["case_type"]=="small claims")))
q("count","How many cases were filed in 2023?", len(sel(lambda d: yr(d,"filing_date")=="2023")))
q("count","How many cases were decided in 2023?", len(sel(lambda d: yr(d,"decision_date")=="2023")))
q("count","how many cases in 2023", f"ambiguous: filed {len(sel(lambda d: yr(d,'filing_date')=='2023'))}, decided {len(sel(lambda d: yr(d,'decision_date')=='2023'))}")
q("count","How many cases were dismissed?", len(sel(lambda d: d["status"]=="dismissed")))
q("count","How many cases claimed more than $100,000?", lst(sel(lambda d: d["amount_claimed"]>100000)))
q("count","How many cases were tried before a jury?", lst(sel(lambda d: d.get("jury_trial") is True)))
q("count","How many cases did Alan Brooks appear in?", lst(sel(lambda d: "Alan Brooks" in att(d))))
q("count","How many landlord-tenant cases were heard at Lakeview?", lst(sel(lambda d: d["case_type"]=="landlord-tenant" and d["courthouse"]=="Lakeview")))
q("count","how many settled cases at central", lst(sel(lambda d: d["status"]=="settled" and d["courthouse"]=="Central")))
q("count","How many contract cases are pending?", lst(sel(lambda d: d["status"]=="pending" and d["case_type"]=="contract")))
q("count","How many cases awarded more than $50,000?", lst(sel(lambda d: d.get("amount_awarded",-1)>50000)))
q("count","How many different judges are there?", len({d["judge"] for d in D if d.get("judge")}))
q("count","How many cases did Maria Gonzalez appear in?", lst(sel(lambda d: "Maria Gonzalez" in att(d))))
q("count","How many cases have Grace Kim as judge?", lst(sel(lambda d: d.get("judge")=="Grace Kim")))
q("count","How many cases was Omar Haddad a party to?", "2: CV-212 (plaintiff), CV-237 (defendant)")
q("count","How many cases were filed before 2022?", lst(sel(lambda d: d["filing_date"]<"2022")))
q("count","how many employment cases", lst(sel(lambda d: d["case_type"]=="employment")))
q("count","How many cases at the Whitaker courthouse ended in judgment?", lst(sel(lambda d: d["courthouse"]=="Whitaker" and d["status"]=="judgment")))
q("count","How many cases did Judge Samuel Ortiz hear?", lst(sel(lambda d: d.get("judge")=="Samuel Ortiz")))
q("count","how many cases had a claim of exactly 250000 dollars", lst(sel(lambda d: d["amount_claimed"]==250000)))
q("count","How many tort cases were tried by jury?", lst(sel(lambda d: d["case_type"]=="tort" and d.get("jury_trial") is True)))
# ---------- structured list
q("list","Which cases are pending?", lst(sel(lambda d: d["status"]=="pending")))
q("list","List the cases heard by Judge Marcus Lee.", lst(sel(lambda d: d.get("judge")=="Marcus Lee")))
q("list","Which cases were heard at the Whitaker courthouse?", lst(sel(lambda d: d["courthouse"]=="Whitaker")))
q("list","Which small claims cases ended in judgment?", lst(sel(lambda d: d["case_type"]=="small claims" and d["status"]=="judgment")))
q("list","Which cases did Victor Huang work on?", lst(sel(lambda d: "Victor Huang" in att(d))))
q("list","Which cases were filed in 2024?", lst(sel(lambda d: yr(d,"filing_date")=="2024")))
q("list","cases against Orion Logistics LLC", lst(sel(lambda d: d["defendant"]=="Orion Logistics LLC")))
q("list","Which cases involve Summit Insurance Co?", lst(sel(lambda d: "Summit Insurance Co" in (d["plaintiff"], d["defendant"]))))
q("list","Which cases were dismissed in 2023?", lst(sel(lambda d: d["status"]=="dismissed" and yr(d,"decision_date")=="2023")))
q("list","Which Lakeview cases did Sofia Marin appear in?", lst(sel(lambda d: "Sofia Marin" in att(d) and d["courthouse"]=="Lakeview")))
q("list","landlord-tenant cases filed in 2023", lst(sel(lambda d: d["case_type"]=="landlord-tenant" and yr(d,"filing_date")=="2023")))
q("list","Which cases before Judge Samuel Ortiz settled?", lst(sel(lambda d: d.get("judge")=="Samuel Ortiz" and d["status"]=="settled")))
q("list","Which cases were decided on January 20, 2023?", lst(sel(lambda d: d.get("decision_date")=="2023-01-20")))
q("list","Which tort cases are pending?", lst(sel(lambda d: d["case_type"]=="tort" and d["status"]=="pending")))
q("list","Which cases had a plaintiff with the surname Whitaker?", lst(sel(lambda d: d["plaintiff"].endswith("Whitaker"))))
q("list","Show me the employment cases at Central", lst(sel(lambda d: d["case_type"]=="employment" and d["courthouse"]=="Central")))
q("list","Which cases did Jonah Reyes handle at the Whitaker courthouse?", lst(sel(lambda d: "Jonah Reyes" in att(d) and d["courthouse"]=="Whitaker")))
q("list","which property cases were settled", lst(sel(lambda d: d["case_type"]=="property" and d["status"]=="settled")))
q("list","Which cases were filed in 2022 at Lakeview?", lst(sel(lambda d: d["courthouse"]=="Lakeview" and yr(d,"filing_date")=="2022")))
# ---------- structured superlative
q("superlative","Which case had the highest amount claimed?", top("amount_claimed"))
q("superlative","Which case had the largest amount awarded?", top("amount_awarded"))
q("superlative","Which case was filed earliest?", top("filing_date", lo=True))
q("superlative","Which case has the most recent filing date?", top("filing_date"))
q("superlative","What is the smallest amount claimed in any case?", top("amount_claimed", lo=True))
q("superlative","Which contract case had the highest amount claimed?", top("amount_claimed", lambda d: d["case_type"]=="contract"))
q("superlative","Which pending case claims the most money?", top("amount_claimed", lambda d: d["status"]=="pending"))
q("superlative","Which small claims case had the lowest amount awarded?", top("amount_awarded", lambda d: d["case_type"]=="small claims", lo=True))
q("superlative","lowest amount awarded at Lakeview", top("amount_awarded", lambda d: d["courthouse"]=="Lakeview", lo=True))
q("superlative","Which case has the latest decision date?", top("decision_date"))
q("superlative","Which case has the earliest decision date?", top("decision_date", lo=True))
q("superlative","Which Whitaker courthouse case had the biggest amount claimed?", top("amount_claimed", lambda d: d["courthouse"]=="Whitaker"))
q("superlative","Which of Judge Grace Kim's cases had the highest amount claimed?", top("amount_claimed", lambda d: d.get("judge")=="Grace Kim"))
q("superlative","Which employment case claimed the least?", top("amount_claimed", lambda d: d["case_type"]=="employment", lo=True))
cnt = collections.Counter(d.get("judge") for d in D if d.get("judge")); m=max(cnt.values())
q("superlative","Which judge has the most cases?", ", ".join(sorted(k for k,v in cnt.items() if v==m))+f" ({m} each)")
ca = collections.Counter(a for d in D for a in att(d)); m=max(ca.values())
q("superlative","Which attorney appeared in the most cases?", ", ".join(sorted(k for k,v in ca.items() if v==m))+f" ({m})")
q("superlative","oldest pending case by filing date", top("filing_date", lambda d: d["status"]=="pending", lo=True))
# ---------- structured yes/no
q("yes_no","Is CV-104 a contract case?", "Yes")
q("yes_no","Was CV-140 settled?", "Yes")
q("yes_no","Is CV-041 heard at the Whitaker courthouse?", "Yes")
q("yes_no","Did CV-014 go to a jury trial?", "No")
q("yes_no","Is Ruth Whitaker the judge in CV-221?", "Yes")
q("yes_no","Was Daniel Whitaker awarded more than $30,000?", "Yes (31500)")
q("yes_no","Has CV-401 been decided?", "No (pending)")
q("yes_no","Did CV-215 claim more than CV-238?", "Yes (250000 vs 200000)")
q("yes_no","Was CV-216 tried before a jury?", "Unknown / not recorded (pending)")
q("yes_no","Did Alan Brooks appear in CV-140?", "Yes")
q("yes_no","Did Peter Hale appear in CV-140?", "No")
q("yes_no","Are there any pending cases at Lakeview?", "Yes: "+", ".join(sel(lambda d: d["status"]=="pending" and d["courthouse"]=="Lakeview")))
q("yes_no","Are there any employment cases at the Whitaker courthouse?", "No" if not sel(lambda d: d["case_type"]=="employment" and d["courthouse"]=="Whitaker") else "Yes")
q("yes_no","Was CV-233 filed in 2023?", "Yes")
q("yes_no","Was CV-243 decided in 2022?", "No (2023-01-20)")
q("yes_no","Does Judge Anita Patel have any tort cases?", "No" if not sel(lambda d: d.get("judge")=="Anita Patel" and d["case_type"]=="tort") else "Yes")
q("yes_no","Did Henry Whitaker's case end in judgment?", "Yes (CV-243)")
q("yes_no","Is Whitaker Plumbing Co the plaintiff in CV-223?", "No (it is the defendant)")
q("yes_no","Did CV-014 claim more than $8,000?", "Yes (8200)")
q("yes_no","Was CV-104 heard at the Whitaker courthouse?", "No (Central; the judge is Ruth Whitaker)")
# ---------- structured negation
q("negation","How many cases did not end in judgment?", lst(sel(lambda d: d["status"]!="judgment")))
q("negation","Which Lakeview cases were not tried before a jury?", "known non-jury: "+", ".join(sel(lambda d: d["courthouse"]=="Lakeview" and d.get("jury_trial") is False))+"; unknown: "+", ".join(sel(lambda d: d["courthouse"]=="Lakeview" and d.get("jury_trial") is None)))
q("negation","How many contract cases did not settle?", lst(sel(lambda d: d["case_type"]=="contract" and d["status"]!="settled")))
q("negation","Which small claims cases were not dismissed?", lst(sel(lambda d: d["case_type"]=="small claims" and d["status"]!="dismissed")))
q("negation","employment cases that are not pending", lst(sel(lambda d: d["case_type"]=="employment" and d["status"]!="pending")))
q("negation","How many cases did not involve attorney Maria Gonzalez?", lst(sel(lambda d: "Maria Gonzalez" not in att(d)))+" (of which with no attorneys recorded: "+", ".join(sel(lambda d: not att(d)))+")")
q("negation","Which cases at the Whitaker courthouse were not heard by Ruth Whitaker?", lst(sel(lambda d: d["courthouse"]=="Whitaker" and d.get("judge")!="Ruth Whitaker")))
q("negation","Which tort cases were not filed in 2022?", lst(sel(lambda d: d["case_type"]=="tort" and yr(d,"filing_date")!="2022")))
# ---------- structured date
q("date","When was CV-140 filed?", g("CV-140","filing_date"))
q("date","When was Rosa Ortiz's case filed?", "2024-07-30 (CV-239)")
q("date","When was CV-225 decided?", g("CV-225","decision_date"))
q("date","Which cases were filed in March 2023?", lst(sel(lambda d: d["filing_date"][:7]=="2023-03")))
q("date","cases decided in January 2023", lst(sel(lambda d: (d.get("decision_date") or "")[:7]=="2023-01")))
q("date","Which cases were filed after June 2024?", lst(sel(lambda d: d["filing_date"]>="2024-07")))
q("date","When was CV-244 decided?", "not decided; pending")
q("date","Which cases filed in 2021 were decided in 2023?", lst(sel(lambda d: yr(d,"filing_date")=="2021" and yr(d,"decision_date")=="2023")))
# ---------- structured comparison
q("comparison","Which claimed more, CV-104 or CV-041?", "CV-104 (48000 vs 15500)")
q("comparison","Did CV-140 or CV-014 claim more?", "CV-140 (120000 vs 8200)")
q("comparison","Was CV-230's award larger than CV-221's?", "No (19000 vs 27500)")
q("comparison","Which was filed earlier, CV-212 or CV-213?", "CV-212 (2023-04-17 vs 2023-07-21)")
q("comparison","Which awarded more, CV-215 or CV-238?", "tie: both 180000")
q("comparison","Did CV-229 get a bigger award than CV-214?", "No (40000 vs 45000)")
q("comparison","Which was decided first, CV-104 or CV-221?", "same day, 2023-01-20 (tie)")
# ---------- structured unanswerable
q("unanswerable","What was the settlement amount in CV-242?", "not disclosed / not in the data")
q("unanswerable","Who is the judge in CV-999?", "no such case")
q("unanswerable","What is case CV-114 about?", "no such case (near CV-104/CV-140/CV-014)")
q("unanswerable","Which attorney represented Omar Haddad in CV-212?", "none: both parties represented themselves")
q("unanswerable","What was the verdict in CV-401?", "none yet: pending")
q("unanswerable","How many jurors voted for the plaintiff in CV-238?", "not stated")
q("unanswerable","What hourly rate does Peter Hale charge?", "not stated")
q("unanswerable","In which case was Judge Ruth Whitaker herself a party?", "none: she is only a judge")
q("unanswerable","Who was the mediator in CV-140?", "not stated")
q("unanswerable","What was the amount awarded in CV-224?", "none: pending")
# ---------- structured why / how
q("why","Why was CV-218 dismissed?", "the plaintiff filed in the wrong court")
q("why","Why was CV-233 dismissed?", "the claim was time-barred")
q("how","How did the parties resolve CV-140?", "settled: agreed to sell the cabin and split the proceeds (60000)")
q("how","how did Jacob Miller's case end", "judgment on 2023-06-30, 180000 awarded (CV-238)")
# ---------- prose (courtdocs)
P = "courtdocs"
for k, qq, e in [
("factoid","What was the civil filing fee in 2022?","$210"),
("factoid","filing fee 2024","$240 (general civil complaint)"),
("factoid","How much is the answer filing fee for a defendant in 2023?","$165"),
("factoid","What is the small claims filing fee for a $3,000 claim?","$50"),
("factoid","motion fee","$60"),
("factoid","How much does a certified copy of a judgment cost?","$25 per document"),
("factoid","How many days does a defendant have to answer a complaint after service?","21 days"),
("factoid","Within how many days must the defendant be served after filing?","60 days"),
("factoid","What form is used for the complaint?","CIV-100"),
("factoid","Which form is the proof of service?","CIV-110"),
("factoid","What is the appeal deadline for a small claims case?","10 days after the decision is mailed"),
("factoid","appeal deadline when the county is a party","60 days"),
("factoid","What was the small claims limit for individuals in 2020?","$7,500"),
("factoid","What is the small claims limit for businesses from 2023?","$6,250"),
("factoid","Who is the Whitaker Courthouse named after?","Judge Eleanor Whitaker, the county's first woman judge (1952-1971)"),
("factoid","What are the hours of the Lakeview courthouse?","8:30 a.m. to 4:00 p.m., closed Fridays"),
("factoid","Where is the only cash payment window?","Central courthouse (clerk's window)"),
("factoid","How many jurors are on a civil jury?","8"),
("factoid","What is the mediation fee per hour after the first session?","$120 per hour, split equally"),
("factoid","What is the income limit for a fee waiver?","at or below 200% of the federal poverty guideline (or public benefits)"),
("factoid","fee waiver form number","FW-001"),
("factoid","What does the sheriff charge to serve papers?","$40"),
("factoid","small claims appeal fee","$75 (2024)"),
("count","How many courthouses does the county civil court have?","3"),
("count","How many steps are there to file a civil case?","7"),
("count","How many small claims cases can a business file per year?","12"),
("count","How many jurors must agree for a civil verdict?","6 of 8"),
("count","How many exceptions to mandatory mediation are listed?","4"),
("count","How many hours is the free mediation session?","up to 3 hours"),
("list","What are the exceptions to mandatory mediation?","restraining order between parties; domestic violence; government agency party; small claims"),
("list","Which fees does a fee waiver cover?","filing fees, motion fees, sheriff's service fee (not the jury fee)"),
("list","What are the small claims filing fee tiers in 2024?","up to $1,500: $30; $1,500-$5,000: $50; over $5,000: $75"),
("list","What payment methods does the clerk accept?","card, check, money order; cash only at Central"),
("list","list the civil filing fees by year","2021 $195, 2022 $210, 2023 $225, 2024 $240"),
("list","Which case types must go to mediation?","contract and property cases claiming over $15,000"),
("superlative","Which courthouse closes earliest in the day?","Lakeview (4:00 p.m.)"),
("superlative","What is the longest appeal deadline?","60 days (county/state agency party)"),
("superlative","In which year was the general filing fee lowest?","2021 ($195)"),
("superlative","What is the most expensive fee in the 2024 schedule?","$240 complaint filing fee (of listed fees; appeal fee $275 is in another doc)"),
("yes_no","Can a business get a fee waiver?","No"),
("yes_no","Is the jury fee refundable?","No"),
("yes_no","Can a plaintiff who loses a small claims case appeal?","No (only the defendant may appeal)"),
("yes_no","Are there juries in small claims cases?","No"),
("yes_no","Is mediation mandatory for tort cases?","No (judge may order it; not automatic)"),
("yes_no","Can I serve the papers on the defendant myself?","No"),
("yes_no","Is the Lakeview courthouse open on Fridays?","No (closed since 2022)"),
("yes_no","Was the small claims limit for individuals $10,000 in 2022?","No ($7,500; raised to $10,000 in 2023)"),
("negation","Which fees are not waived by a fee waiver?","the jury demand fee (except by a judge's special order)"),
("negation","Which cases do not need to go to mediation?","restraining order, domestic violence, government party, small claims (tort not automatic)"),
("negation","Where is cash not accepted?","Whitaker and Lakeview courthouses (only Central takes cash)"),
("negation","Which courthouse does not open at 8:00 a.m.?","Lakeview (8:30 a.m.)"),
("date","When was the small claims limit raised to $10,000?","January 1, 2023"),
("date","When did Judge Eleanor Whitaker serve?","1952-1971"),
("date","When is the case management conference held?","about 90 days after filing"),
("date","By when must a jury demand be filed?","at least 25 days before the first trial date"),
("comparison","Is the appeal deadline longer for small claims or general civil cases?","general civil (30 days vs 10)"),
("comparison","How much more was the filing fee in 2024 than in 2021?","$45 ($240 vs $195)"),
("comparison","Which is higher, the answer fee or the complaint fee in 2024?","complaint fee ($240 vs $180)"),
("unanswerable","What is the filing fee in 2025?","not stated"),
("unanswerable","What is the phone number of the Central courthouse?","not stated"),
("unanswerable","How much is the parking fee at Lakeview courthouse?","not stated"),
("unanswerable","What was the small claims limit in 2015 for businesses in the neighbouring county?","not stated (only this county; before 2019 $2,500)"),
("unanswerable","Who is the current chief judge?","not stated"),
("why","Why does the appeal deadline exist?","finality: the winner needs to know when a judgment can be enforced; records and witnesses become less reliable"),
("why","Why is the small claims appeal period shorter?","small claims are meant to be fast and cheap; the appeal is a new hearing"),
("why","Why is mediation mandatory?","most disputes settle when parties talk with a neutral mediator; frees trial time"),
("why","Why was the small claims limit raised in 2023?","inflation pushed ordinary disputes above the old limit"),
("how","How do I apply for a fee waiver?","submit form FW-001 with your first filing; clerk decides within 5 court days, else granted automatically"),
("how","How do I start a civil case?","7 steps: check court, prepare CIV-100, file and pay, serve within 60 days, proof of service CIV-110 within 10 days, wait 21 days for answer, attend CMC"),
("how","how to demand a jury trial","file a demand with the $150 jury fee at least 25 days before the first trial date"),
]:
    q(k, qq, e, P)
# ---------- two_document
q("two_document","What is the jury demand fee and can it be waived?","$150; not waived except by a judge's special order","courtdocs")
q("two_document","How long does a defendant have to answer, and how long after judgment to appeal a general civil case?","21 days after service; 30 days after judgment","courtdocs")
q("two_document","CV-212 was a small claims case; within how many days could it be appealed after the decision?","10 days after the decision is mailed (only by defendant)","docket+courtdocs")
q("two_document","What was the small claims limit for individuals when CV-243 was filed?","$7,500 (filed 2022-12-05)","docket+courtdocs")
q("two_document","What was the general civil filing fee in the year CV-230 was filed?","$225 (filed 2023)","docket+courtdocs")
q("two_document","Which courthouse heard CV-218 and what are its hours?","Lakeview; 8:30 a.m.-4:00 p.m., closed Fridays","docket+courtdocs")
q("two_document","Did CV-140 have to go through mandatory mediation?","Yes: property case claiming $120,000 > $15,000","docket+courtdocs")
q("two_document","Who is the Whitaker courthouse named after, and is that the judge in CV-104?","Judge Eleanor Whitaker; no, CV-104's judge is Ruth Whitaker (and it was heard at Central)","docket+courtdocs")
with open("questions.jsonl","w") as f:
    for x in Q: f.write(json.dumps(x)+"\n")
c = collections.Counter(x["kind"] for x in Q); print(len(Q), c, collections.Counter(x["collection"] for x in Q))
