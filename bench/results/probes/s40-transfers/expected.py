import json
recs=[json.loads(l) for l in open("/tmp/s40/probe-b/corpus/records.jsonl")]
M=[r["metadata"] for r in recs]
byid={m["transfer_id"]:m for m in M}
byp={m["player"]:m for m in M}
Q=[]
def add(kind,q,exp,coll="transfers"):
    Q.append({"id":f"q{len(Q)+1:03d}","collection":coll,"kind":kind,"question":q,"expected":str(exp)})
def eur(x): return "not recorded" if x is None else f"€{x:,}"
def names(ms): return "; ".join(sorted(m["player"] for m in ms))+f" ({len(ms)})"
def sel(f): return [m for m in M if f(m)]
yr=lambda m: int(m["transfer_date"][:4])
# ---------- structured factoid ----------
for tid in ["TR-104","TR-140","TR-014","TR-401"]:
    m=byid[tid]; add("factoid",f"Who was the player in transfer {tid}?",m["player"])
add("factoid","what fee was paid in TR-140",eur(byid["TR-140"]["fee_eur"]))
add("factoid","TR-014 fee",eur(byid["TR-014"]["fee_eur"]))
add("factoid","Which club did Aaron Kelso join?",byp["Aaron Kelso"]["buying_club"])
add("factoid","Which club did Ethan Kelso join?",byp["Ethan Kelso"]["buying_club"])
add("factoid","Who is Aaron Kelso's agent?",byp["Aaron Kelso"]["agent"])
add("factoid","who was the agent for Liam Brennan's transfer",byp["Liam Brennan"]["agent"])
add("factoid","Who represented Conor Brennan?",byp["Conor Brennan"]["agent"])
add("factoid","What position does Isaac Brennan play?",byp["Isaac Brennan"]["position"])
add("factoid","How much was Samuel Okoye's transfer fee?",eur(byp["Samuel Okoye"]["fee_eur"]))
add("factoid","What is Ryan Okoye's weekly wage?",eur(byp["Ryan Okoye"]["weekly_wage_eur"]))
add("factoid","weekly wage of Diego Marquez",eur(byp["Diego Marquez"]["weekly_wage_eur"]))
add("factoid","Which club sold George Harwick?",byp["George Harwick"]["selling_club"])
add("factoid","What year was George Harwick born?",byp["George Harwick"]["birth_year"])
add("factoid","Who is the agent of George Harwick?",byp["George Harwick"]["agent"])
add("factoid","In what year does Yusuf Demir's contract end?",byp["Yusuf Demir"]["contract_end_year"])
add("factoid","What nationalities does Samuel Okoye hold?",", ".join(byp["Samuel Okoye"]["nationalities"]))
add("factoid","nationalities of Diego Marquez","Spain, Argentina")
add("factoid","When was Kwame Mensah's transfer completed?",byp["Kwame Mensah"]["transfer_date"])
add("factoid","What was the transfer fee of Yusuf Demir?",eur(byp["Yusuf Demir"]["fee_eur"]))
add("factoid","What is Viktor Petrov's weekly wage?","not recorded (wage not disclosed)")
add("factoid","How much did Castleton Albion pay for Henrik Dahl?","undisclosed / not recorded")
add("factoid","Who is Mateo Silva's agent?","not recorded")
add("factoid","When does Isaac Brennan's contract end?","not recorded (not announced)")
add("factoid","What year was Chris Walker born?","not recorded")
add("factoid","What percentage sell-on clause is in Aaron Kelso's deal?","20%")
add("factoid","What shirt number was Liam Brennan given?","8")
add("factoid","What is the release clause in Jonas Berg's contract?","€10 million")
add("factoid","How much could Mohamed Salah Eddine's fee rise by in add-ons?","€2 million")
add("factoid","In how many instalments was Diego Marquez's fee paid?","three")
add("factoid","Which club holds an option to buy Tomas Novak?","Castleton Albion")
add("factoid","Who is Ryan Okoye's brother?","Samuel Okoye")
add("factoid","what position is TR-230","Midfielder (Pablo Ortega)")
add("factoid","Which club did the player in TR-221 join?",byid["TR-221"]["buying_club"])
add("factoid","selling club TR-242",byid["TR-242"]["selling_club"])
add("factoid","What was the weekly wage in transfer TR-244?",eur(byid["TR-244"]["weekly_wage_eur"]))
add("factoid","Who is the agent in TR-236?","Helen Price")
add("factoid","Which club did Harwick Town sign Marco Rossi from?","Castleton Albion")
add("factoid","wat fee did Dunmore City pay for Jamal Okafor",eur(byp["Jamal Okafor"]["fee_eur"]))
add("factoid","What is Adam Price's birth year?",byp["Adam Price"]["birth_year"])
add("factoid","Which club did Lars Nilsen go to on loan?",byp["Lars Nilsen"]["buying_club"])
add("factoid","What is the contract end year of Ethan Kelso?",byp["Ethan Kelso"]["contract_end_year"])
add("factoid","What is the birth year of Aaron Kelso?",byp["Aaron Kelso"]["birth_year"])
add("factoid","What was the loan fee for Felix Wagner?",eur(byp["Felix Wagner"]["fee_eur"]))
add("factoid","What share of Felix Wagner's wage does Redbridge Athletic contribute?","75%")
# ---------- count ----------
def cnt(kind,q,ms): add(kind,q,f"{len(ms)}: "+"; ".join(sorted(m['player'] for m in ms)))
cnt("count","How many transfers were loans?",sel(lambda m:m["loan"]))
cnt("count","How many players did Kelso United sign?",sel(lambda m:m["buying_club"]=="Kelso United"))
cnt("count","How many players did Kelso United sell?",sel(lambda m:m["selling_club"]=="Kelso United"))
cnt("count","how many goalkeepers were transferred",sel(lambda m:m["position"]=="Goalkeeper"))
cnt("count","How many transfers took place in 2023?",sel(lambda m:yr(m)==2023))
cnt("count","How many players have contracts ending in 2025?",sel(lambda m:m.get("contract_end_year")==2025))
cnt("count","How many players were born in 2000?",sel(lambda m:m.get("birth_year")==2000))
cnt("count","How many transfers did Helen Price negotiate as agent?",sel(lambda m:m.get("agent")=="Helen Price"))
cnt("count","How many transfers had a fee above 10 million euros?",sel(lambda m:(m.get("fee_eur") or 0)>10000000))
cnt("count","How many players hold English nationality?",sel(lambda m:"England" in m.get("nationalities",[])))
cnt("count","how many transfers involved players with Irish nationality",sel(lambda m:"Ireland" in m.get("nationalities",[])))
cnt("count","How many forwards were signed on loan?",sel(lambda m:m["loan"] and m["position"]=="Forward"))
cnt("count","How many defenders joined Harwick Town?",sel(lambda m:m["position"]=="Defender" and m["buying_club"]=="Harwick Town"))
cnt("count","How many transfers had no agent recorded?",sel(lambda m:"agent" not in m))
cnt("count","How many transfers were completed in January 2024?",sel(lambda m:m["transfer_date"].startswith("2024-01")))
cnt("count","How many players earn more than 50,000 euros a week?",sel(lambda m:(m.get("weekly_wage_eur") or 0)>50000))
cnt("count","how many transfers did Paul Brennan handle",sel(lambda m:m.get("agent")=="Paul Brennan"))
cnt("count","How many players born after 2002 were transferred?",sel(lambda m:(m.get("birth_year") or 0)>2002))
cnt("count","count of midfielders sold by Dunmore City",sel(lambda m:m["position"]=="Midfielder" and m["selling_club"]=="Dunmore City"))
cnt("count","How many transfers were agreed before 2022?",sel(lambda m:yr(m)<2022))
cnt("count","How many permanent transfers were there in 2024?",sel(lambda m:yr(m)==2024 and not m["loan"]))
cnt("count","How many players with German nationality moved?",sel(lambda m:"Germany" in m.get("nationalities",[])))
# ---------- list ----------
lst=lambda q,ms: add("list",q,names(ms))
lst("Which players did Kelso United sign?",sel(lambda m:m["buying_club"]=="Kelso United"))
lst("Which players joined Harwick Town?",sel(lambda m:m["buying_club"]=="Harwick Town"))
lst("List the players represented by Paul Brennan.",sel(lambda m:m.get("agent")=="Paul Brennan"))
lst("Which players did Ellis Harwick represent?",sel(lambda m:m.get("agent")=="Ellis Harwick"))
lst("loan transfers in 2024",sel(lambda m:m["loan"] and yr(m)==2024))
lst("Which players hold German nationality?",sel(lambda m:"Germany" in m.get("nationalities",[])))
lst("Which forwards cost more than 10 million euros?",sel(lambda m:m["position"]=="Forward" and (m.get("fee_eur") or 0)>10000000))
lst("Which goalkeepers were transferred?",sel(lambda m:m["position"]=="Goalkeeper"))
lst("Which players' contracts end in 2024?",sel(lambda m:m.get("contract_end_year")==2024))
lst("players sold by Porthaven FC",sel(lambda m:m["selling_club"]=="Porthaven FC"))
lst("Which players were born in 1998?",sel(lambda m:m.get("birth_year")==1998))
lst("Which players moved from Ashford Rovers?",sel(lambda m:m["selling_club"]=="Ashford Rovers"))
lst("Show me defenders who moved in 2022",sel(lambda m:m["position"]=="Defender" and yr(m)==2022))
lst("Which players with French nationality were transferred?",sel(lambda m:"France" in m.get("nationalities",[])))
lst("which midfielders went on loan",sel(lambda m:m["position"]=="Midfielder" and m["loan"]))
lst("Which transfers happened in the summer of 2021?",sel(lambda m:m["transfer_date"][:7] in ("2021-06","2021-07","2021-08")))
lst("Which players earn exactly 48,000 euros a week?",sel(lambda m:m.get("weekly_wage_eur")==48000))
# ---------- superlative ----------
sup=lambda q,e: add("superlative",q,e)
def rank(f,key,rev=True):
    ms=[m for m in M if f(m) and m.get(key) is not None]; best=(max if rev else min)(m[key] for m in ms)
    return "; ".join(sorted(m["player"] for m in ms if m[key]==best))+f" ({best})"
T=lambda m:True
sup("Which transfer had the highest fee?",rank(T,"fee_eur"))
sup("Who was the cheapest transfer?",rank(T,"fee_eur",False))
sup("Which player has the highest weekly wage?",rank(T,"weekly_wage_eur"))
sup("lowest weekly wage",rank(T,"weekly_wage_eur",False))
sup("Who is the youngest player transferred?",rank(T,"birth_year"))
sup("Who is the oldest player in the transfer records?",rank(T,"birth_year",False))
sup("What was the most expensive transfer in 2022?",rank(lambda m:yr(m)==2022,"fee_eur"))
sup("most expensive defender",rank(lambda m:m["position"]=="Defender","fee_eur"))
sup("Which goalkeeper had the highest fee?",rank(lambda m:m["position"]=="Goalkeeper","fee_eur"))
sup("Which was the most expensive signing by Kelso United?",rank(lambda m:m["buying_club"]=="Kelso United","fee_eur"))
sup("What was the earliest transfer?","Conor Brennan (2021-01-22, TR-014)")
sup("What is the most recent transfer?","Emil Svensson (2024-08-30, TR-245)")
sup("Which loan had the highest loan fee?",rank(lambda m:m["loan"],"fee_eur"))
sup("Which player's contract runs the longest?",rank(T,"contract_end_year"))
# ---------- yes_no ----------
yn=lambda q,e: add("yes_no",q,e)
yn("Is Aaron Kelso a forward?","Yes")
yn("Was TR-140 a loan?","No (permanent)")
yn("Was TR-014 a loan?","Yes")
yn("Did TR-104 cost more than 8 million euros?","Yes (€8.5M)")
yn("Did TR-014 cost more than 1 million euros?","No (€250,000)")
yn("Is Liam Brennan represented by Paul Brennan?","No (Dara Okoye)")
yn("Did Samuel Okoye join Porthaven FC?","Yes")
yn("Does Lucas Moreau hold French nationality?","Yes")
yn("Did Ethan Kelso join Kelso United?","No (Castleton Albion)")
yn("Did George Harwick play for Harwick Town?","No (from Millbrook Wanderers to Porthaven FC; text says never played for Harwick Town)")
yn("Was Henrik Dahl's fee above 1 million euros?","Unknown (fee undisclosed)")
yn("Is Viktor Petrov paid more than 40,000 euros a week?","Unknown (wage not recorded)")
yn("Did any goalkeeper move on loan?","No (no goalkeeper loans)")
yn("Is Mateo Silva a goalkeeper?","Yes")
yn("Was Yusuf Demir born in 2002?","Yes")
yn("Does Isaac Brennan's contract end in 2026?","Unknown (not announced)")
yn("Did Kelso United sign anyone from Ashford Rovers?","Yes (Yusuf Demir)")
# ---------- negation ----------
neg=lambda q,ms: add("negation",q,names(ms))
neg("Which players joined Harwick Town on a permanent deal, not a loan?",sel(lambda m:m["buying_club"]=="Harwick Town" and not m["loan"]))
neg("Which goalkeepers were not signed by Kelso United?",sel(lambda m:m["position"]=="Goalkeeper" and m["buying_club"]!="Kelso United"))
neg("forwards not represented by Dara Okoye",sel(lambda m:m["position"]=="Forward" and m.get("agent")!="Dara Okoye"))
neg("Which loans were not in 2024?",sel(lambda m:m["loan"] and yr(m)!=2024))
neg("Which players do not hold English nationality and joined Dunmore City?",sel(lambda m:m["buying_club"]=="Dunmore City" and "England" not in m.get("nationalities",[])))
neg("Which midfielders were transferred without an agent?",sel(lambda m:m["position"]=="Midfielder" and "agent" not in m))
neg("Kelso United signings that were not forwards",sel(lambda m:m["buying_club"]=="Kelso United" and m["position"]!="Forward"))
# ---------- date ----------
dt=lambda q,e: add("date",q,e)
dt("When did transfer TR-014 take place?","2021-01-22")
dt("When was TR-104 completed?","2023-07-14")
dt("What date did Aaron Kelso sign for Kelso United?","2023-07-14")
dt("Which transfer was completed on 31 August 2023?","TR-249 Lars Nilsen")
dt("Which transfers were completed in August 2024?",names(sel(lambda m:m["transfer_date"].startswith("2024-08"))))
dt("Which contracts end in 2023?",names(sel(lambda m:m.get("contract_end_year")==2023)))
dt("Which players were transferred after 1 July 2024?",names(sel(lambda m:m["transfer_date"]>"2024-07-01")))
dt("transfers in january 2022",names(sel(lambda m:m["transfer_date"].startswith("2022-01"))))
# ---------- comparison ----------
cmp_=lambda q,e: add("comparison",q,e)
cmp_("Did TR-104 cost more than TR-140?","Yes (8.5M vs 4.2M)")
cmp_("Which cost more, TR-014 or TR-140?","TR-140 (€4.2M vs €250,000)")
cmp_("Who earns more per week, Liam Brennan or Conor Brennan?","Liam Brennan (30,000 vs 12,000)")
cmp_("Is Aaron Kelso older than Ethan Kelso?","No (1999 vs 1994; Ethan is older)")
cmp_("Was Samuel Okoye more expensive than Diego Marquez?","No (equal, €12M each)")
cmp_("Which was more expensive, TR-221 or TR-242?","Equal (€9.8M each)")
cmp_("Did Ruben Costa earn a higher weekly wage than Mohamed Salah Eddine?","No (equal, €48,000)")
# ---------- unanswerable ----------
un=lambda q,e="unanswerable": add("unanswerable",q,e)
un("What was the fee in transfer TR-999?","unanswerable (no TR-999)")
un("Who is Ryan Kelso's agent?","unanswerable (no Ryan Kelso)")
un("How many goals did Aaron Kelso score last season?")
un("What is Samuel Okoye's release clause?","unanswerable (not stated)")
un("Which club did Jose Mourinho join?")
un("What is TR-041's fee?","unanswerable (no TR-041)")
un("How tall is Yusuf Demir?")
un("What did Kelso United pay Paul Brennan in agent fees?")
un("Which hospital did Samuel Okoye have his medical at?")
un("What was Tomas Novak's loan fee?","unanswerable/not recorded")
add("factoid","Which Brennan is a goalkeeper?","Isaac Brennan")
add("factoid","What fee did Harwick Town receive for Aaron Kelso?","€8,500,000")
add("yes_no","Did Helen Price represent Adam Price?","Yes")
add("list","kelso transfers","ambiguous: players Aaron Kelso (TR-104), Ethan Kelso (TR-223); Kelso United signings/sales")
cnt("count","How many transfers happened in 2023 or later?",sel(lambda m:yr(m)>=2023))
add("yes_no","Is TR-104 a loan?","No")
import sys
ns=len(Q)
P=[
("factoid","When does the 2023-24 summer transfer window open?","14 June 2023"),
("factoid","When did the winter window close in 2024-25?","3 February 2025"),
("factoid","2022-23 summer window closing date","1 September 2022 (at 19:00)"),
("factoid","At what time do transfer windows close?","23:00 local time (except 2022-23 summer: 19:00)"),
("factoid","How long does the league take to approve a registration?","within 48 hours"),
("factoid","How many extra hours does a deal sheet give?","2 hours (1 hour in 2021-22)"),
("factoid","What is the registration fee for a loan?","€500"),
("factoid","registration fee permanent transfer","€1,500"),
("factoid","What is the minimum number of homegrown players in 2024-25?","9"),
("factoid","What is the squad size limit?","25 players aged 21 or over"),
("factoid","How many club-trained players must be in the homegrown group?","at least 4"),
("factoid","What was the squad cost ratio limit in 2022-23?","80%"),
("factoid","What is the net spend cap for 2024-25?","€100 million"),
("factoid","net spend cap 2023-24","€120 million"),
("factoid","What is the maximum number of players a club may have out on loan?","6 senior players (21+)"),
("factoid","How many loans in may a club have from the same club?","2"),
("factoid","What share of the wage must a borrowing club pay?","at least 50% (40% until 2022-23)"),
("factoid","What is the points penalty for breaching the squad cost ratio by more than 5 points?","6-point deduction the following season"),
("factoid","How many GBE points does a player need to qualify automatically?","15 (12 for players 21 or under from 2024)"),
("factoid","What is the maximum agent fee for a selling club's agent?","10% of the transfer fee"),
("factoid","How long does an emergency goalkeeper registration last?","7 days, renewable"),
("factoid","how long must a free agent signed outside a window wait before playing","14 days after registration"),
("factoid","Since when must agents hold a licence?","1 October 2023"),
("count","How many steps are there in registering a new player?","6"),
("count","How many transfer windows are there each season?","2"),
("count","How many loans in may a club have at once in 2023-24?","3"),
("count","How many clubs entered administration between 2018 and 2020?","3"),
("count","how many homegrown players needed in 2023-24","8"),
("count","How many points does a player aged 21 or under need for a GBE in 2024?","12"),
("count","How many steps does the emergency goalkeeper procedure have?","4"),
("count","How many days may a failed medical be retaken within?","7 days (once)"),
("list","What are the steps to register a new player?","agree terms; medical; submit contract within 5 working days; ITC for foreign; GBE for work permit; league approval within 48 h"),
("list","List the squad cost ratio limits by season.","2021-22 85%; 2022-23 80%; 2023-24 70%; 2024-25 70%"),
("list","What documents must be submitted for registration?","signed contract and transfer agreement (+ ITC, GBE where needed)"),
("list","What earns GBE points?","international appearances, league of current club, minutes played"),
("list","Which penalties apply for breaching spending limits?","fine (≤5 pts); 6-point deduction (>5 pts); registration ban next window for net spend cap breach"),
("list","Who may be registered outside the transfer windows?","free agents and emergency goalkeepers"),
("superlative","Which season had the highest squad cost ratio limit?","2021-22 (85%)"),
("superlative","Which winter window closed latest?","2024-25 (3 February 2025)"),
("superlative","What was the latest opening date of a summer window?","14 June (2023-24 and 2024-25)"),
("superlative","Which season's summer window was the shortest?","2024-25 (14 June-30 August)"),
("yes_no","Is there a net spend cap in 2022-23?","No (no cap before 2023-24)"),
("yes_no","Can a player on loan play against his parent club in the cup?","Yes, if both clubs agree in writing before the loan begins"),
("yes_no","Can an agent represent the selling and buying club together?","No"),
("yes_no","Do players under 21 count towards the 25-player limit?","No"),
("yes_no","Was the squad cost ratio limit 75% in 2023-24?","No, 70% (75% only for newly promoted clubs)"),
("yes_no","Can a deal sheet be used for loans of players under 18?","No"),
("yes_no","Is the agent licence required before 2023?","No (only registration; licence since 1 Oct 2023)"),
("yes_no","Did the 2024-25 summer window close on 1 September?","No (30 August 2024)"),
("negation","Which steps of registration do not apply to domestic players?","ITC request (step 4) (and GBE applies only to work-permit players)"),
("negation","Which players do not count towards the 25-player limit?","players under 21 (and emergency goalkeepers while emergency lasts)"),
("negation","When is a parent club not allowed to recall a loaned player?","when the loan agreement has no recall clause (recall only in January with clause)"),
("negation","Which loans are not limited to one season?","loans from foreign clubs (up to two seasons)"),
("date","When did the 2021-22 winter window open?","3 January 2022"),
("date","When does the 2023-24 winter window close?","1 February 2024"),
("date","When did the international tournament finish in 2022?","9 June 2022"),
("date","When does the financial year end?","13 June"),
("comparison","Was the squad cost ratio limit higher in 2021-22 than in 2023-24?","Yes (85% vs 70%)"),
("comparison","Is the net spend cap lower in 2024-25 than in 2023-24?","Yes (€100M vs €120M)"),
("comparison","Is the registration fee for a loan higher than for a permanent transfer?","No (€500 vs €1,500)"),
("unanswerable","What is the squad cost ratio limit for 2025-26?","unanswerable"),
("unanswerable","What is the maximum transfer fee a club may pay for one player?","unanswerable"),
("unanswerable","When does the 2025-26 summer window open?","unanswerable"),
("unanswerable","How many foreign players may a club field in one match?","unanswerable"),
("unanswerable","What is the fine amount for breaching the squad cost ratio by 3 points?","unanswerable (fine, amount not stated)"),
("why","Why did the 2022-23 summer window open later?","the international tournament finished on 9 June 2022; league didn't want negotiating while players on national duty"),
("why","Why does the homegrown quota exist?","to keep clubs investing in academies; national association wanted wider pool for youth teams; competitive balance"),
("why","Why do spending limits exist?","three clubs entered administration 2018-2020 after overspending on wages"),
("why","Why was the deal sheet extension raised to 2 hours?","several deals collapsed over scanning problems"),
("why","Why may an agent not represent the selling and buying club together?","his interests would conflict"),
("why","why was the GBE threshold lowered for young players","association wanted clubs to sign young talents instead of older players"),
("how","How do I register an emergency goalkeeper?","send medical certificates; identify goalkeeper; submit registration (decision within 24h); renew every 7 days"),
("how","How can a club get extra time on deadline day?","lodge a deal sheet before the deadline: 2 extra hours"),
("how","How is a player defined as homegrown?","registered with a league club for 3 full seasons/36 months before 21st birthday"),
("how","How does a club recall a loaned player?","only in the January window and only if the loan agreement has a recall clause"),
("how","How early should clubs apply for a GBE?","at least three weeks before the window closes"),
("two_document","Can an emergency goalkeeper be registered outside the window, and does he count towards the 25-player limit?","Yes; no, not while the emergency lasts"),
("two_document","What is the deadline-day extension and at what time did the 2022-23 summer window close?","2 hours via deal sheet; 19:00"),
("two_document","A club signs a player from a foreign association who needs a work permit: what two documents must it obtain?","ITC and GBE"),
("two_document","What is the net spend cap in 2024-25 and the squad cost ratio limit that season?","€100 million; 70%"),
]
for k,q,e in P: add(k,q,e,"rules")
X=[
("two_document","Conor Brennan moved on loan in January 2021: when did that winter window close?","unanswerable from docs (window table starts with 2021-22; the 2020-21 winter window is not given)"),
("two_document","What registration fee did the league charge for TR-014?","€500 (TR-014 is a loan)"),
("two_document","Felix Wagner's loan (TR-222): does Redbridge Athletic pay at least the league's minimum wage share?","Yes: 75% contribution vs 50% minimum"),
("two_document","Was Lars Nilsen's transfer completed before the 2023-24 summer window closed?","Yes: 31 Aug 2023, window closed 1 Sept 2023"),
]
for k,q,e in X: add(k,q,e,"transfers+rules")
json.dump
with open("/tmp/s40/probe-b/questions.jsonl","w") as f:
    for q in Q: f.write(json.dumps(q,ensure_ascii=False)+"\n")
from collections import Counter
print(len(Q), ns, Counter(q["kind"] for q in Q), Counter(q["collection"] for q in Q))
