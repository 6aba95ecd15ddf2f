"""ExponentialFamily: distributions p(x) = exp(<t(x), theta> - F(theta) + k(x)) whose entropy and
same-family KL divergence follow from the log normalizer F by autograd (Bregman divergences)."""
from __future__ import annotations

import gradjit
from gradjit.distributions.distribution import Distribution
from gradjit.distributions.transforms.base import _sum_rightmost


class ExponentialFamily(Distribution):
    """A family states its natural parameters theta, its log normalizer F and the expected
    carrier measure E[k(x)]; the gradient of F is the mean of the sufficient statistic."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self):
        """H = F(theta) - <theta, grad F(theta)> - E[k(x)]."""
        result = -self._mean_carrier_measure
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_norm = self._log_normalizer(*params)
        grads = gradjit.autograd.grad(log_norm.sum(), params, create_graph=True)
        result = result + log_norm
        for param, grad in zip(params, grads):
            result = result - (param * grad).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result


def kl_exponential_family(p, q):
    """KL(p || q) = F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>."""
    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot "
            "                            be computed using Bregman divergences")
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    log_norm = p._log_normalizer(*p_params)
    grads = gradjit.autograd.grad(log_norm.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - log_norm
    for p_param, q_param, grad in zip(p_params, q_params, grads):
        result = result - _sum_rightmost((q_param - p_param) * grad, len(q.event_shape))
    return result
