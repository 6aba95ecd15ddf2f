"""L-BFGS as PyTorch runs it: one parameter group, several closure evaluations per step, the
last `history_size` curvature pairs, a fixed step of lr or a strong Wolfe line search, and
PyTorch's stopping tests, so its iterates follow PyTorch's."""
from __future__ import annotations

import gradjit
from gradjit.optim.line_search import strong_wolfe
from gradjit.optim.optimizer import Optimizer, check_lr


class LBFGS(Optimizer):
    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        return gradjit.cat([p.grad.reshape(-1) if p.grad is not None else
                            gradjit.zeros(p.numel(), dtype=p.dtype) for p in self._params])

    def _add_grad(self, step, direction):
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset:offset + n].view_as(p), alpha=step)
            offset += n

    def _evaluate_along(self, closure, start, direction):
        """(loss, flat gradient) at start + t*direction, as a function of t; the parameters
        are put back to `start` after each evaluation."""
        def evaluate(t):
            self._add_grad(t, direction)
            with gradjit.enable_grad():
                evaluated = closure()
            loss, flat_grad = float(evaluated), self._flat_grad()
            for p, value in zip(self._params, start):
                p.copy_(value)
            return loss, flat_grad
        return evaluate

    def _search(self, closure, line_search_fn, t, d, loss, flat_grad, gtd, max_ls):
        """(loss, flat gradient, step, evaluations) of the line search along d."""
        if line_search_fn != "strong_wolfe":
            raise RuntimeError("only 'strong_wolfe' is supported")
        evaluate = self._evaluate_along(closure, [p.clone() for p in self._params], d)
        return strong_wolfe(evaluate, t, d, loss, flat_grad, gtd, max_ls=max_ls)

    def step(self, closure):
        """Run up to max_iter iterations; returns the loss closure() gave first."""
        group = self.param_groups[0]
        lr, history_size = group["lr"], group["history_size"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        with gradjit.enable_grad():
            first_loss = closure()
        evals = 1
        state["func_evals"] += 1
        # losses are read outside grad mode, where PyTorch's scalar conversion does not warn
        with gradjit.no_grad():
            loss = float(first_loss)
            flat_grad = self._flat_grad()
            if float(flat_grad.abs().max()) <= tolerance_grad:
                return first_loss
            d, t = state.get("d"), state.get("t")
            old_dirs, old_steps = state.get("old_dirs"), state.get("old_stps")
            ro, h_diag = state.get("ro"), state.get("H_diag")
            prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
            n_iter = 0
            while n_iter < group["max_iter"]:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:
                    d, old_dirs, old_steps, ro, h_diag = -flat_grad, [], [], [], 1
                else:
                    y = flat_grad - prev_flat_grad
                    s = d * t
                    ys = y.dot(s)
                    if float(ys) > 1e-10:
                        if len(old_dirs) == history_size:
                            old_dirs.pop(0), old_steps.pop(0), ro.pop(0)
                        old_dirs.append(y)
                        old_steps.append(s)
                        ro.append(1.0 / ys)
                        h_diag = ys / y.dot(y)
                    # kept in the state, as PyTorch keeps them (state_dict shows them)
                    alphas = state.setdefault("al", [None] * history_size)
                    q = -flat_grad
                    for i in range(len(old_dirs) - 1, -1, -1):
                        alphas[i] = old_steps[i].dot(q) * ro[i]
                        q.add_(old_dirs[i], alpha=-alphas[i])
                    d = r = q * h_diag
                    for i in range(len(old_dirs)):
                        beta = old_dirs[i].dot(r) * ro[i]
                        r.add_(old_steps[i], alpha=alphas[i] - beta)
                prev_flat_grad = flat_grad.clone()
                prev_loss = loss
                t = min(1.0, 1.0 / float(flat_grad.abs().sum())) * lr \
                    if state["n_iter"] == 1 else lr
                gtd = float(flat_grad.dot(d))
                if gtd > -tolerance_change:
                    break
                more = 0
                if group["line_search_fn"] is not None:
                    loss, flat_grad, t, more = self._search(
                        closure, group["line_search_fn"], t, d, loss, flat_grad, gtd,
                        group["max_eval"] - evals)
                    self._add_grad(t, d)
                else:
                    self._add_grad(t, d)
                    if n_iter != group["max_iter"]:
                        with gradjit.enable_grad():
                            evaluated = closure()
                        loss = float(evaluated)
                        flat_grad = self._flat_grad()
                        more = 1
                evals += more
                state["func_evals"] += more
                if n_iter == group["max_iter"] or evals >= group["max_eval"]:
                    break
                if float(flat_grad.abs().max()) <= tolerance_grad:
                    break
                if float((d * t).abs().max()) <= tolerance_change:
                    break
                if abs(loss - prev_loss) < tolerance_change:
                    break
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_steps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return first_loss
