import json, subprocess, os, time, sys
home="/tmp/s28/rerun/home"
env=dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", SELFRAG_HOME=home)
S="/work/main/.venv/bin/selfrag"; P="/tmp/s28/probe"
def sh(cmd): return subprocess.run(cmd,capture_output=True,text=True,env=env)
if not os.path.exists(home):
    print(sh([S,"ingest",f"{P}/corpus/courses/courses.jsonl","--collection","courses","--schema",f"{P}/corpus/courses.schema.json"]).stderr[-300:])
    print(sh([S,"ingest",f"{P}/corpus/postmortems","--collection","postmortems","--schema",f"{P}/corpus/postmortems.schema.json"]).stderr[-300:])
qs=[json.loads(l) for l in open(f"{P}/questions.jsonl")]
for f in ("extra_results","extra2_results","extra3_results"):
    for i,l in enumerate(open(f"{P}/out/{f}.jsonl")):
        r=json.loads(l); res=r.get("result") or {}
        qs.append(dict(id=f"{f}-{i}", question=r["question"], collection=res.get("collection") or r.get("collection") or "courses", expected=r.get("expected","?"), kind="extra"))
out=open("/tmp/s28/rerun/results.jsonl","w")
for r in qs:
    cmd=[S,"ask",r["question"],"-c",r["collection"],"--json"]
    if r.get("thread"): cmd+=["--thread","re-"+r["thread"]]
    p=sh(cmd)
    try: res=json.loads(p.stdout)
    except Exception: res={"_raw":p.stdout[-300:],"err":p.stderr[-300:]}
    out.write(json.dumps(dict(id=r["id"],kind=r.get("kind"),q=r["question"],expected=r.get("expected"),outcome=res.get("outcome"),short=res.get("short_answer"),answer=(res.get("answer") or "")[:300],stop=res.get("stop_reason")),ensure_ascii=False)+"\n"); out.flush()
