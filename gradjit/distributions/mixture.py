"""MixtureSameFamily: a Categorical choosing among the components of one batched distribution
(the rightmost batch dim), with PyTorch's density, cdf, moments and draws."""
from __future__ import annotations

import gradjit
from gradjit.distributions import constraints
from gradjit.distributions.discrete import Categorical
from gradjit.distributions.distribution import Distribution


# PyTorch's message, with its leading and doubled spaces
_NOT_CATEGORICAL = " The Mixture distribution needs to be an  instance of " \
    "torch.distributions.Categorical"


class MixtureSameFamily(Distribution):
    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(_NOT_CATEGORICAL)
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({component_batch})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape,
                         validate_args=validate_args)

    mixture_distribution = property(lambda self: self._mixture_distribution)
    component_distribution = property(lambda self: self._component_distribution)

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    def _pad(self, x):
        """x with a component dim before the event dims."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        """mixture weights shaped to broadcast against component values."""
        batch_ndims = len(self._batch_shape)
        mixture_ndims = len(self._mixture_distribution.batch_shape)
        pad = 0 if mixture_ndims == 1 else batch_ndims - mixture_ndims
        shape = tuple(x.shape)
        return x.reshape(shape[:-1] + (1,) * pad + shape[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = (probs * self._component_distribution.variance).sum(dim)
        var_cond_mean = (probs * (self._component_distribution.mean -
                                  self._pad(self.mean)).pow(2.0)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, x):
        cdf_x = self._component_distribution.cdf(self._pad(x))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        log_mix_prob = gradjit.log_softmax(self._mixture_distribution.logits, dim=-1)
        return gradjit.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def expand(self, batch_shape, _instance=None):
        batch_shape = tuple(batch_shape)
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        MixtureSameFamily.__init__(
            new, self._mixture_distribution.expand(batch_shape),
            self._component_distribution.expand(batch_shape + (self._num_component,)),
            validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with gradjit.no_grad():
            gather_dim = len(sample_shape) + len(self._batch_shape)
            event = tuple(self._event_shape)
            choice = self._mixture_distribution.sample(sample_shape)
            draws = self._component_distribution.sample(sample_shape)
            index = choice.reshape(tuple(choice.shape) + (1,) * (len(event) + 1))
            index = index.expand(tuple(choice.shape) + (1,) + event)
            return gradjit.gather(draws, gather_dim, index).squeeze(gather_dim)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self._mixture_distribution},\n  " \
            f"{self._component_distribution})"
