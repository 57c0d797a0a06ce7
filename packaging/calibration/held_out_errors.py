#!/usr/bin/env python3
# The simulator's out-of-sample error on every calibration row, the figures its error bands are
# made of (resources/calibration/held-out-errors.csv, read by core/sim/error_band.cpp): for each
# row, refit the stacks without it and predict it.
#   CNN rows (calibration.csv):      accellab-cli fit-stacks --write (the stack-fit.json spec)
#   transformer rows (calibration-llm.csv, calibration-gpu-single.csv): fit_llm_stacks.py, from
#                                    stack files without the figures it fits
#   held-out references (resources/reference/*.csv: measured or published, never fitted on):
#                                    validated as they are
# A row the simulator refuses (no plan fits, unknown model) is written with an empty error.
# Usage: packaging/calibration/held_out_errors.py [--only cnn|llm|reference]  (after building
# build/app/accellab-cli; about 5 minutes on 2 cores)
import collections, csv, json, os, shutil, subprocess, sys, tempfile
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
CLI = os.environ.get('ACCELLAB_CLI', ROOT + '/build/app/accellab-cli')
CAL = ROOT + '/resources/calibration'
OUT = CAL + '/held-out-errors.csv'
LLM_FILES = [CAL + '/calibration-llm.csv', CAL + '/calibration-gpu-single.csv']
LLM_FITTED = ['matmul_efficiency', 'fp8_matmul_efficiency', 'matmul_efficiency_fp32']

def write(path, fieldnames, rows):
    with open(path, 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=fieldnames); w.writeheader()
        for x in rows: w.writerow(x)

def validate_one(env, test, extra=None):
    out = subprocess.run([CLI, 'validate', '--reference', test, '--format', 'json'], env=env, capture_output=True,
                         text=True, check=True).stdout
    x = json.loads(out)['rows'][0]
    if extra is not None:  # transformer rows: the MFU the published figure implies, and the chips
        # Above 1 the published figure claims more than the peak (DLE's V100 fp32 BERT row): no MFU.
        m = x.get('published_mfu', '')
        extra['published_mfu'] = m if m != '' and m <= 1 else ''
        extra['chips'] = x.get('chips', '')
    return None if 'error' in x else x.get('abs_pct_error')

def cnn_rows():
    rows = list(csv.DictReader(open(CAL + '/calibration.csv')))
    fields = list(rows[0].keys())
    for i, r in enumerate(rows):
        tmp = tempfile.mkdtemp()
        res = tmp + '/resources'
        shutil.copytree(ROOT + '/resources', res)
        train = tmp + '/train.csv'
        write(train, fields, [x for j, x in enumerate(rows) if j != i])
        env = dict(os.environ, ACCELLAB_RESOURCES=res, ACCELLAB_USER_DIR=tmp + '/user')
        subprocess.run([CLI, 'fit-stacks', '--reference', train, '--write', tmp + '/fitted'], env=env,
                       capture_output=True, check=True)
        for f in os.listdir(tmp + '/fitted'): shutil.copy(tmp + '/fitted/' + f, res + '/stacks/' + f)
        test = tmp + '/test.csv'
        write(test, fields, [r])
        e = validate_one(env, test)
        print('calibration.csv', r['id'], r['stack'], r['device'], e, flush=True)
        yield dict(id=r['id'], reference='calibration.csv', model=r['model'], stack=r['stack'], device=r['device'],
                   metric=r['metric'], abs_pct_error='' if e is None else round(e, 2))
        shutil.rmtree(tmp)

def stripped_stacks(dst):
    shutil.copytree(ROOT + '/resources/stacks', dst)
    for s in ['tuned', 'mlperf', 'pytorch-eager', 'pytorch-compile']:
        p = f'{dst}/{s}.json'
        d = json.load(open(p), object_pairs_hook=collections.OrderedDict)
        for k in LLM_FITTED:
            d.pop(k, None); d['sources'].pop(k, None)
        json.dump(d, open(p, 'w'), indent=2)

def llm_rows():
    tables = [(f, list(csv.DictReader(open(f)))) for f in LLM_FILES]
    for ti, (name, rows) in enumerate(tables):
        for i, r in enumerate(rows):
            tmp = tempfile.mkdtemp()
            res = tmp + '/fake/resources'
            shutil.copytree(ROOT + '/resources', res, ignore=shutil.ignore_patterns('stacks'))
            stripped_stacks(res + '/stacks')
            train = []
            for tj, (n2, rows2) in enumerate(tables):
                p = f'{tmp}/train{tj}.csv'
                write(p, list(rows2[0].keys()), [x for j, x in enumerate(rows2) if not (tj == ti and j == i)])
                train.append(p)
            test = tmp + '/test.csv'
            write(test, list(rows[0].keys()), [r])
            env = dict(os.environ, ACCELLAB_RESOURCES=res, ACCELLAB_USER_DIR=tmp + '/user', ACCELLAB_CLI=CLI,
                       ACCELLAB_LLM_REFERENCE=train[0], ACCELLAB_GPU_SINGLE_REFERENCE=train[1])
            src = open(ROOT + '/packaging/calibration/fit_llm_stacks.py').read().replace(
                "ROOT=os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))", f"ROOT='{tmp}/fake'")
            open(tmp + '/fit.py', 'w').write(src)
            subprocess.run(['python3', tmp + '/fit.py'], env=env, capture_output=True, check=True)
            extra = {}
            e = validate_one(env, test, extra)
            print(os.path.basename(name), r['id'], r['stack'], r['device'], e, flush=True)
            yield dict(id=r['id'], reference=os.path.basename(name), model=r['model'], stack=r['stack'],
                       device=r['device'], metric=r['metric'], abs_pct_error='' if e is None else round(e, 2), **extra)
            shutil.rmtree(tmp)

def reference_rows():
    import glob
    for f in sorted(glob.glob(ROOT + '/resources/reference/*.csv')):
        out = json.loads(subprocess.run([CLI, 'validate', '--reference', f, '--format', 'json'], capture_output=True,
                                        text=True, check=True).stdout)
        src = {r['id']: r for r in csv.DictReader(open(f))}
        for x in out['rows']:
            r = src[x['id']]
            e = None if 'error' in x else x.get('abs_pct_error')
            print(os.path.basename(f), r['id'], r['stack'], r['device'], e, flush=True)
            yield dict(id=r['id'], reference=os.path.basename(f), model=r['model'], stack=r['stack'] or x.get('stack', ''),
                       device=r['device'], metric=r['metric'], abs_pct_error='' if e is None else round(e, 2))

only = sys.argv[2] if len(sys.argv) > 2 and sys.argv[1] == '--only' else None
keep = []
if only in ('cnn', 'llm') and os.path.exists(OUT):  # refresh one half, keep the other
    keep = [x for x in csv.DictReader(open(OUT)) if (x['reference'] == 'calibration.csv') == (only == 'llm')]
if only == 'reference':
    keep = [x for x in csv.DictReader(open(OUT)) if x['reference'] in ('calibration.csv', 'calibration-llm.csv', 'calibration-gpu-single.csv')]
    rows = keep + list(reference_rows())
else:
    rows = keep + list(cnn_rows() if only != 'llm' else []) + list(llm_rows() if only != 'cnn' else []) + list(reference_rows())
tmp = OUT + '.tmp'
write(tmp, ['id', 'reference', 'model', 'stack', 'device', 'metric', 'abs_pct_error', 'published_mfu', 'chips'], rows)
os.replace(tmp, OUT)
print('wrote', OUT, len(rows), 'rows')
