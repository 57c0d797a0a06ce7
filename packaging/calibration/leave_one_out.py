#!/usr/bin/env python3
# Leave-one-out estimate of the transformer simulator's error on rows it was not fitted on: for
# each row of calibration-llm.csv, refit the stack figures without it (fit_llm_stacks.py) and
# predict it. Needs the stack files without the transformer figures in /tmp/fit/stacks.bak
# (git show ed0f4cd:resources/stacks/<id>.json) and a built build/app/accellab-cli.
# Leave-one-out: refit without each row (the shipped fit procedure), predict that row.
import json, subprocess, shutil, os, csv, statistics, sys, tempfile
ROOT='/work/main'
rows = list(csv.DictReader(open(ROOT+'/resources/calibration/calibration-llm.csv')))
header = open(ROOT+'/resources/calibration/calibration-llm.csv').readline()
errs = []
for i, r in enumerate(rows):
    tmp = tempfile.mkdtemp()
    # stacks without the transformer figures
    shutil.copytree('/tmp/fit/stacks.bak', tmp+'/stacks')
    train = tmp+'/train.csv'
    with open(train,'w',newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys())); w.writeheader()
        for j, x in enumerate(rows):
            if j != i: w.writerow(x)
    test = tmp+'/test.csv'
    with open(test,'w',newline='') as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys())); w.writeheader(); w.writerow(r)
    # run the fit against a copy of the repo's resources with these stacks
    res = tmp+'/res'; shutil.copytree(ROOT+'/resources', res); shutil.rmtree(res+'/stacks'); shutil.copytree(tmp+'/stacks', res+'/stacks')
    env = dict(os.environ, ACCELLAB_RESOURCES=res, ACCELLAB_USER_DIR=tmp+"/user", ACCELLAB_LLM_REFERENCE=train)
    src = open(ROOT+'/packaging/calibration/fit_llm_stacks.py').read().replace("ROOT=os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))", f"ROOT='{tmp}/fake'")
    os.makedirs(tmp+'/fake/resources'); os.symlink(res+'/stacks', tmp+'/fake/resources/stacks'); os.symlink(res+'/devices', tmp+'/fake/resources/devices')
    open(tmp+'/fit.py','w').write(src)
    env['ACCELLAB_CLI'] = ROOT+'/build/app/accellab-cli'
    subprocess.run(['python3', tmp+'/fit.py'], env=env, capture_output=True, check=True)
    out = subprocess.run([ROOT+'/build/app/accellab-cli','validate','--reference',test,'--format','json'], env=env, capture_output=True, text=True, check=True).stdout
    x = json.loads(out)['rows'][0]
    e = x.get('abs_pct_error'); errs.append(e)
    print(r['id'], e, flush=True)
    shutil.rmtree(tmp)
ok = [e for e in errs if e is not None]
print('LOO median', statistics.median(ok), 'mean', statistics.mean(ok), 'n', len(ok))
