"""The PTX memory model's axioms, checked by brute force over every candidate execution of a small
litmus test: an independent reference for which outcomes the model allows.

A transcription of the axioms of the Alloy model published with Lustig et al., "A Formal Analysis
of the NVIDIA PTX Memory Consistency Model" (ASPLOS 2019; NVlabs ptxmemorymodel, ptx.als), for
loads, stores and fences (no read-modify-writes, barriers or proxies): no thin air (rf and
dependencies acyclic), SC per location among morally strong accesses, and causality order (program
order, fence.sc order and release/acquire synchronization at scope, with observation) consistent
with coherence and with what every read reads. Events are dicts made by W, R and F below; a test is
a list of threads, each a list of events, and `ctas` names each thread's block.
"""
import itertools

def closure(rel, n):
    R = [[False]*n for _ in range(n)]
    for a,b in rel: R[a][b] = True
    for k in range(n):
        for i in range(n):
            if R[i][k]:
                Ri, Rk = R[i], R[k]
                for j in range(n):
                    if Rk[j]: Ri[j] = True
    return {(i,j) for i in range(n) for j in range(n) if R[i][j]}

def comp(a, b):
    bm = {}
    for x,y in b: bm.setdefault(x, []).append(y)
    return {(x,z) for x,y in a for z in bm.get(y, [])}

class Test:
    def __init__(self, name, threads, ctas=None):
        # threads: list of lists of event dicts
        self.name = name
        self.ev = []
        self.ctas = ctas or list(range(len(threads)))
        for t, evs in enumerate(threads):
            for i, e in enumerate(evs):
                e = dict(e); e['tid'] = t; e['idx'] = i; e['id'] = len(self.ev)
                self.ev.append(e)
        regid = {e['reg']: e['id'] for e in self.ev if e['k'] == 'R'}
        for e in self.ev:
            if 'dep' in e: e['dep'] = [regid[r] for r in e['dep']]
    def incl(self, e, t):
        s = e.get('scope')
        if s is None: return t == e['tid']
        if s == 'cta': return self.ctas[t] == self.ctas[e['tid']]
        return True
    def strong(self, a, b):
        A, B = self.ev[a], self.ev[b]
        return self.incl(A, B['tid']) and self.incl(B, A['tid'])

    def executions(self):
        ev = self.ev; n = len(ev)
        reads = [e for e in ev if e['k'] == 'R']
        writes = [e for e in ev if e['k'] == 'W']
        addrs = sorted({e['a'] for e in ev if e['k'] in 'RW'})
        po = {(a['id'], b['id']) for a in ev for b in ev if a['tid'] == b['tid'] and a['idx'] < b['idx']}
        po_loc = {(a,b) for a,b in po if ev[a]['k'] in 'RW' and ev[b]['k'] in 'RW' and ev[a]['a'] == ev[b]['a']}
        strong_r = {(a,b) for a in range(n) for b in range(n) if self.strong(a,b)}
        scf = [e['id'] for e in ev if e['k'] == 'F' and e['sem'] == 'sc']
        rf_choices = [[None] + [w['id'] for w in writes if w['a'] == r['a']] for r in reads]
        co_choices = [list(itertools.permutations([w['id'] for w in writes if w['a'] == a])) for a in addrs]
        for rfc in itertools.product(*rf_choices):
            rf = {(w, r['id']) for r, w in zip(reads, rfc) if w is not None}
            for coc in itertools.product(*co_choices):
                co = set()
                for perm in coc:
                    for i in range(len(perm)):
                        for j in range(i+1, len(perm)):
                            co.add((perm[i], perm[j]))
                for scperm in itertools.permutations(scf):
                    sc = set()
                    for i in range(len(scperm)):
                        for j in range(i+1, len(scperm)):
                            if (scperm[i], scperm[j]) in strong_r: sc.add((scperm[i], scperm[j]))
                    yield self.check(rf, co, sc, po, po_loc, strong_r, reads, rfc, writes)

    def check(self, rf, co, sc, po, po_loc, strong_r, reads, rfc, writes):
        ev = self.ev; n = len(ev)
        fr = set()
        for r, w in zip(reads, rfc):
            for w2 in writes:
                if w2['a'] != r['a']: continue
                if w is None or (w, w2['id']) in co: fr.add((r['id'], w2['id']))
        dep = {(d, e['id']) for e in ev for d in e.get('dep', [])}
        val = {}
        # values: compute after rf (deps resolved in po order; cycles -> 'OOTA')
        def wval(wid, seen=()):
            e = ev[wid]
            if 'dep' in e and e['dep']:
                r = e['dep'][0]
                if wid in seen: return 'OOTA'
                return rval(r, seen + (wid,))
            return e['v']
        def rval(rid, seen=()):
            w = dict(((r['id'], w) for r, w in zip(reads, rfc)))[rid]
            return 0 if w is None else wval(w, seen)
        regs = {e['reg']: rval(e['id']) for e in reads}
        final = {}
        for a in {e['a'] for e in writes}:
            ws = [w['id'] for w in writes if w['a'] == a]
            last = [w for w in ws if not any((w, x) in co for x in ws)]
            final[a] = wval(last[0])
        res = dict(regs); res.update({'final_' + k: v for k, v in final.items()})
        # axioms
        def acyclic(rel): return all(a != b for a, b in closure(rel, n))
        if not acyclic(rf | dep): return (False, res, 'no_thin_air')
        com = rf | co | fr
        if not acyclic((com & strong_r) | po_loc): return (False, res, 'sc_per_loc')
        observation = rf & strong_r
        K = lambda e: e['k']; S = lambda e: e.get('sem')
        Release = {e['id'] for e in ev if K(e) == 'W' and S(e) == 'release'}
        Acquire = {e['id'] for e in ev if K(e) == 'R' and S(e) == 'acquire'}
        Fences = {e['id'] for e in ev if K(e) == 'F'}
        W = {e['id'] for e in ev if K(e) == 'W'}; R = {e['id'] for e in ev if K(e) == 'R'}
        prefix = {(r, r) for r in Release} | {(a, b) for a, b in po_loc if a in Release and b in W} \
               | {(a, b) for a, b in po if a in Fences and b in W}
        suffix = {(a, a) for a in Acquire} | {(a, b) for a, b in po_loc if a in R and b in Acquire} \
               | {(a, b) for a, b in po if a in R and b in Fences}
        sync = {(a, b) for a, b in comp(comp(prefix, observation), suffix) if (a, b) in strong_r}
        star_po = po | {(i, i) for i in range(n)}
        cause_base = closure(comp(comp(star_po, sc | sync), star_po), n)
        cause = cause_base | comp(observation, po_loc | cause_base)
        for a, b in cause:
            if a == b: return (False, res, 'causality(refl)')
            e1, e2 = ev[a], ev[b]
            if K(e1) == 'W' and K(e2) == 'W' and e1['a'] == e2['a'] and (a, b) not in co:
                return (False, res, 'coherence')
        for a, b in fr | rf:
            if (b, a) in cause: return (False, res, 'causality')
        return (True, res, 'ok')

    def run(self, pred, show=False):
        allowed = False; reasons = {}
        for ok, res, why in self.executions():
            if pred(res):
                if ok: allowed = True
                reasons[why] = reasons.get(why, 0) + 1
        return ('ALLOWED' if allowed else 'FORBIDDEN'), reasons

def W(a, v, sem='relaxed', scope='gpu', dep=None):
    e = {'k': 'W', 'a': a, 'v': v, 'sem': sem, 'scope': None if sem == 'weak' else scope}
    if dep: e['dep'] = dep
    return e
def R(a, reg, sem='relaxed', scope='gpu'):
    return {'k': 'R', 'a': a, 'reg': reg, 'sem': sem, 'scope': None if sem == 'weak' else scope}
def F(sem='acq_rel', scope='gpu'):
    return {'k': 'F', 'sem': sem, 'scope': scope}
