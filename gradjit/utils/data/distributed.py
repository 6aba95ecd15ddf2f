"""torch.utils.data.distributed: each of `num_replicas` processes (by default the process
group's ranks) reads its own share of a
dataset, padded (or cut) to equal shares, shuffled by seed + epoch as PyTorch shuffles."""
from __future__ import annotations

import math

import gradjit
from gradjit.utils.data.sampler import Sampler


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:  # the process group's (refused without one)
            from gradjit import distributed
            num_replicas = distributed.get_world_size() if num_replicas is None else \
                num_replicas
            rank = distributed.get_rank() if rank is None else rank
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank, self.epoch = dataset, num_replicas, rank, 0
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        n = len(dataset)
        self.num_samples = math.ceil((n - num_replicas) / num_replicas if drop_last and
                                     n % num_replicas else n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            generator = gradjit.Generator()
            generator.manual_seed(self.seed + self.epoch)
            indices = gradjit.randperm(n, generator=generator).tolist()
        else:
            indices = list(range(n))
        if self.drop_last:
            indices = indices[:self.total_size]
        elif indices:  # repeated from the start up to an equal share each
            indices = (indices * math.ceil(self.total_size / n))[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The next pass shuffles with seed + epoch."""
        self.epoch = epoch
