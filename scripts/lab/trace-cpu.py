# CPU (thread time) by phase before the first contentful paint in Chromium traces of scripts/lab/measure.ts
# (LAB_TRACE): the page renderer's main thread (commit, parse, style, layout, paint, script) and raster.
# Usage: python3 scripts/lab/trace-cpu.py TRACE.json...
import json, sys, collections
def phase(name):
    if name in ('ParseHTML',): return 'parse'
    if name in ('UpdateLayoutTree',): return 'style'
    if name in ('Layout',): return 'layout'
    if name in ('LocalFrameView::RunPaintLifecyclePhase',): return 'paint'
    if name in ('EvaluateScript', 'FunctionCall', 'v8.compile'): return 'script'
    if name in ('RenderFrameImpl::CommitNavigation',): return 'commit'
    return None
rows = []
for f in sys.argv[1:]:
    data = json.load(open(f))
    ev = data['traceEvents'] if isinstance(data, dict) else data
    threads = {(e['pid'], e['tid']): e['args']['name'] for e in ev if e.get('ph') == 'M' and e.get('name') == 'thread_name'}
    nav = [e for e in ev if e.get('name') == 'navigationStart' and 'http' in json.dumps(e.get('args', {}))][-1]
    pid = nav['pid']; t0 = nav['ts']
    fcps = [e for e in ev if e.get('name') == 'firstContentfulPaint' and e['pid'] == pid]
    tf = fcps[-1]['ts'] if fcps else t0 + 3e6
    commit = [e for e in ev if e.get('name') == 'RenderFrameImpl::CommitNavigation' and e['pid'] == pid]
    tc = commit[-1]['ts'] if commit else t0
    out = collections.Counter()
    for e in ev:
        if e.get('ph') != 'X' or e['pid'] != pid or not (t0 <= e['ts'] <= tf): continue
        th = threads.get((e['pid'], e['tid']), '')
        if th == 'CrRendererMain':
            ph = phase(e['name'])
            if ph: out[ph] += e.get('tdur', e.get('dur', 0)) / 1000
            if e['name'] == 'RunTask' : out['main(all tasks)'] += e.get('tdur', 0) / 1000
        elif e['name'] == 'RasterTask':
            out['raster'] += e.get('tdur', e.get('dur', 0)) / 1000
            out['raster(wall)'] += e.get('dur', 0) / 1000
    out['commit->fcp(wall)'] = (tf - tc) / 1000
    out['fcp(wall)'] = (tf - t0) / 1000
    rows.append(out)
keys = ['fcp(wall)', 'commit->fcp(wall)', 'main(all tasks)', 'commit', 'parse', 'style', 'layout', 'paint', 'script', 'raster', 'raster(wall)']
print(' '.join('%s' % k for k in keys))
for r in rows: print('  ' + ' '.join('%6.1f' % r[k] for k in keys))
import statistics
print('median ' + ' '.join('%6.1f' % statistics.median([r[k] for r in rows]) for k in keys))
