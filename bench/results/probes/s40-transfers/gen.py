import json
# id, player, pos, sell, buy, date, cend, byear, fee, wage, agent, nats, loan, extra
R = [
("TR-104","Aaron Kelso","Forward","Harwick Town","Kelso United","2023-07-14",2027,1999,8500000,45000,"Paul Brennan",["Scotland"],False,"The deal includes a 20% sell-on clause in favour of Harwick Town."),
("TR-140","Liam Brennan","Midfielder","Kelso United","Dunmore City","2023-08-30",2026,2001,4200000,30000,"Dara Okoye",["Ireland"],False,"He was handed the number 8 shirt."),
("TR-014","Conor Brennan","Defender","Ashford Rovers","Redbridge Athletic","2021-01-22",2023,2002,250000,12000,"Paul Brennan",["Ireland","England"],True,"The loan fee was paid in a single instalment."),
("TR-401","Samuel Okoye","Forward","Dunmore City","Porthaven FC","2022-07-05",2026,1997,12000000,60000,"Sofia Marquez",["Nigeria","England"],False,"He passed his medical at the second attempt."),
("TR-215","Diego Marquez","Midfielder","Porthaven FC","Harwick Town","2022-08-12",2025,1995,12000000,55000,"Jonas Lindqvist",["Spain","Argentina"],False,"The fee was paid in three instalments."),
("TR-216","Mateo Silva","Goalkeeper","Millbrook Wanderers","Kelso United","2021-07-19",2024,1993,1500000,18000,None,["Portugal"],False,"He had been third choice at Millbrook Wanderers."),
("TR-217","Jonas Berg","Defender","Castleton Albion","Ashford Rovers","2021-08-03",2025,1998,3000000,22000,"Helen Price",["Norway"],False,"His contract contains a release clause of 10 million euros."),
("TR-218","Tomas Novak","Midfielder","Redbridge Athletic","Castleton Albion","2022-01-28",2022,2003,None,9000,"Jonas Lindqvist",["Czech Republic"],True,"Castleton Albion hold an option to buy at the end of the loan."),
("TR-219","Kwame Mensah","Forward","Kelso United","Millbrook Wanderers","2022-01-31",2027,2000,6750000,None,"Dara Okoye",["Ghana"],False,"The transfer was completed minutes before the deadline."),
("TR-220","Oliver Grant","Goalkeeper","Porthaven FC","Dunmore City","2023-01-16",2026,1996,2000000,25000,"Helen Price",["England"],False,"He replaced the injured first-choice goalkeeper."),
("TR-221","Ruben Costa","Defender","Harwick Town","Porthaven FC","2023-07-01",2028,2001,9800000,48000,"Sofia Marquez",["Portugal","Brazil"],False,"It was Porthaven FC's record signing for a defender."),
("TR-222","Felix Wagner","Midfielder","Dunmore City","Redbridge Athletic","2023-08-21",2024,2004,150000,8000,None,["Germany"],True,"The loan includes a 75% wage contribution from Redbridge Athletic."),
("TR-223","Ethan Kelso","Defender","Millbrook Wanderers","Castleton Albion","2021-07-27",2024,1994,800000,15000,"Ellis Harwick",["Scotland"],False,"He is not related to Aaron Kelso."),
("TR-224","Yusuf Demir","Forward","Ashford Rovers","Kelso United","2024-01-25",2028,2002,15500000,70000,"Jonas Lindqvist",["Turkey","Germany"],False,"It is the highest fee ever paid by Kelso United."),
("TR-225","Marco Rossi","Midfielder","Castleton Albion","Harwick Town","2024-07-10",2029,2003,7000000,40000,"Ellis Harwick",["Italy"],False,"Harwick Town beat two other clubs to his signature."),
("TR-226","Lucas Moreau","Forward","Redbridge Athletic","Ashford Rovers","2024-08-29",2025,2005,None,10000,"Sofia Marquez",["France"],True,"The loan can be cut short in January."),
("TR-227","Henrik Dahl","Goalkeeper","Kelso United","Castleton Albion","2024-01-12",2026,1991,None,20000,None,["Denmark"],False,"The fee was undisclosed."),
("TR-228","Noah Fischer","Defender","Dunmore City","Millbrook Wanderers","2022-08-31",2025,1999,2500000,21000,"Helen Price",["Germany","Austria"],False,"He signed a three-year deal."),
("TR-229","Jamal Okafor","Forward","Millbrook Wanderers","Dunmore City","2021-08-20",2025,1998,5500000,38000,"Dara Okoye",["Nigeria"],False,"He scored on his debut a week later."),
("TR-230","Pablo Ortega","Midfielder","Harwick Town","Ashford Rovers","2022-07-22",2024,1990,1000000,26000,"Jonas Lindqvist",["Spain"],False,"He was the oldest player signed by Ashford Rovers that summer."),
("TR-231","Samuel Reid","Defender","Porthaven FC","Kelso United","2022-01-14",2025,1997,3000000,22000,"Paul Brennan",["Wales"],False,"He can also play as a defensive midfielder."),
("TR-232","Leo Hartmann","Forward","Castleton Albion","Porthaven FC","2023-01-31",2023,2004,300000,11000,"Helen Price",["Germany"],True,"Porthaven FC paid the loan fee up front."),
("TR-233","Isaac Brennan","Goalkeeper","Ashford Rovers","Millbrook Wanderers","2023-07-20",None,2000,600000,14000,"Dara Okoye",["England","Ireland"],False,"The length of his contract was not announced."),
("TR-234","Daniel Sousa","Midfielder","Dunmore City","Kelso United","2024-07-03",2028,1998,11000000,58000,"Sofia Marquez",["Portugal"],False,"He was Kelso United's captain-elect."),
("TR-235","Viktor Petrov","Defender","Redbridge Athletic","Harwick Town","2024-08-15",2027,2000,4500000,None,"Jonas Lindqvist",["Bulgaria"],False,"The wage was not disclosed by either club."),
("TR-236","Adam Price","Forward","Kelso United","Redbridge Athletic","2021-01-29",2022,2001,None,7000,"Helen Price",["Wales","England"],True,"Adam Price is the son of his agent Helen Price."),
("TR-237","George Harwick","Midfielder","Millbrook Wanderers","Porthaven FC","2023-08-10",2027,1999,5500000,38000,"Ellis Harwick",["England"],False,"George Harwick has never played for Harwick Town."),
("TR-238","Karim Haddad","Forward","Harwick Town","Castleton Albion","2021-08-31",2024,1996,2200000,24000,None,["Morocco","France"],False,"The deal was agreed on deadline day."),
("TR-239","Stefan Ilic","Defender","Castleton Albion","Dunmore City","2024-01-30",2026,1997,3800000,30000,"Dara Okoye",["Serbia"],False,"He arrived as cover for an injured centre-back."),
("TR-240","Ryan Okoye","Midfielder","Porthaven FC","Ashford Rovers","2022-01-20",2022,2002,100000,9000,"Sofia Marquez",["England","Nigeria"],True,"Ryan Okoye is the younger brother of Samuel Okoye."),
("TR-241","Arne Lindqvist","Goalkeeper","Dunmore City","Harwick Town","2022-07-15",2025,1995,900000,16000,"Jonas Lindqvist",["Sweden"],False,"Arne Lindqvist is a cousin of his agent."),
("TR-242","Mohamed Salah Eddine","Forward","Ashford Rovers","Dunmore City","2024-07-25",2029,2003,9800000,48000,"Paul Brennan",["Egypt"],False,"The fee could rise by 2 million euros in add-ons."),
("TR-243","Tobias Klein","Defender","Kelso United","Ashford Rovers","2023-01-09",2025,1995,1200000,19000,"Helen Price",["Germany"],False,"He had fallen down the pecking order at Kelso United."),
("TR-244","Chris Walker","Midfielder","Redbridge Athletic","Millbrook Wanderers","2023-07-28",2026,None,2000000,25000,"Ellis Harwick",["England"],False,"His date of birth was not published by the club."),
("TR-245","Emil Svensson","Forward","Millbrook Wanderers","Redbridge Athletic","2024-08-30",2025,2004,500000,13000,"Jonas Lindqvist",["Sweden"],True,"The loan fee rises if Redbridge Athletic avoid relegation."),
("TR-246","Hugo Laurent","Goalkeeper","Castleton Albion","Kelso United","2022-08-25",2026,1994,1800000,20000,"Sofia Marquez",["France","Belgium"],False,"He signed on the same day as his brother."),
("TR-247","Andre Santos","Defender","Harwick Town","Millbrook Wanderers","2021-07-08",2023,1992,700000,17000,"Dara Okoye",["Brazil"],False,"He left Harwick Town after six seasons."),
("TR-248","Sean Murphy","Midfielder","Ashford Rovers","Porthaven FC","2024-01-18",2027,2001,6000000,None,None,["Ireland"],False,"The move reunited him with his former youth coach."),
("TR-249","Lars Nilsen","Forward","Porthaven FC","Castleton Albion","2023-08-31",2024,1998,400000,15000,"Helen Price",["Norway"],True,"Castleton Albion must play him in at least half of their league matches."),
("TR-250","Ibrahim Diallo","Midfielder","Redbridge Athletic","Dunmore City","2021-07-30",2025,2000,3500000,28000,"Paul Brennan",["Senegal","France"],False,"He was the first signing of the summer for Dunmore City."),
]
MONTHS=["January","February","March","April","May","June","July","August","September","October","November","December"]
def fm(x):
    return f"€{x/1e6:g} million" if x>=1000000 else f"€{x:,}"
recs=[]
for i,(tid,pl,pos,sell,buy,date,cend,by,fee,wage,agent,nats,loan,extra) in enumerate(R):
    y,m,d=date.split("-"); ds=f"{int(d)} {MONTHS[int(m)-1]} {y}"
    kind="on loan" if loan else "on a permanent transfer"
    t=f"Transfer {tid}: {pl}, a {pos.lower()}, moved from {sell} to {buy} {kind} on {ds}."
    if fee is not None: t+=f" The {'loan ' if loan else ''}fee was {fm(fee)}."
    # wage only in text for even i; agent only in text for i%3==0; birth year in text for i%2==1
    if wage is not None and i%2==0: t+=f" His weekly wage is {fm(wage)}."
    if agent and i%3==0: t+=f" The deal was negotiated by his agent {agent}."
    if by and i%2==1: t+=f" He was born in {by}."
    if cend and i%4==0: t+=f" His contract runs until {cend}."
    t+=" "+extra
    md={"transfer_id":tid,"player":pl,"position":pos,"selling_club":sell,"buying_club":buy,"transfer_date":date,"loan":loan}
    if cend is not None: md["contract_end_year"]=cend
    if by is not None: md["birth_year"]=by
    if fee is not None: md["fee_eur"]=fee
    if wage is not None: md["weekly_wage_eur"]=wage
    if agent: md["agent"]=agent
    if nats: md["nationalities"]=nats
    recs.append({"id":tid,"text":t,"metadata":md})
with open("/tmp/s40/probe-b/corpus/records.jsonl","w") as f:
    for r in recs: f.write(json.dumps(r,ensure_ascii=False)+"\n")
schema={"description":"Football league player transfer records, one record per transfer",
"attributes":[
 {"name":"transfer_id","type":"string","kind":"identifier","description":"transfer id code, e.g. TR-104"},
 {"name":"player","type":"string","kind":"name","description":"name of the player transferred"},
 {"name":"position","type":"string","kind":"category","allowed_values":["Goalkeeper","Defender","Midfielder","Forward"],"description":"playing position of the player"},
 {"name":"selling_club","type":"string","kind":"name","description":"club the player left (the selling club)"},
 {"name":"buying_club","type":"string","kind":"name","description":"club the player joined (the buying club)"},
 {"name":"transfer_date","type":"date","kind":"date","description":"date the transfer was completed"},
 {"name":"contract_end_year","type":"integer","kind":"year","description":"year the player's contract (or loan) with the buying club ends"},
 {"name":"birth_year","type":"integer","kind":"year","description":"year the player was born"},
 {"name":"fee_eur","type":"integer","kind":"money","unit":"euro","description":"transfer fee in euros (loan fee for loans)"},
 {"name":"weekly_wage_eur","type":"integer","kind":"money","unit":"euro","description":"player's weekly wage in euros"},
 {"name":"agent","type":"string","kind":"name","description":"the player's agent who negotiated the deal"},
 {"name":"nationalities","type":"string[]","description":"nationalities the player holds"},
 {"name":"loan","type":"boolean","kind":"flag","description":"whether the transfer is a loan (true) or permanent (false)"}
]}
json.dump(schema,open("/tmp/s40/probe-b/corpus/records.schema.json","w"),indent=1)
print(len(recs))
