"""torch.utils.data: datasets, samplers and the DataLoader, with PyTorch's draws, so that
after torch.manual_seed a shuffled loader and random_split give PyTorch's order."""
from gradjit.utils.data.dataloader import (DataLoader, default_collate, default_convert,
                                           get_worker_info)
from gradjit.utils.data.dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset,
                                        StackDataset, Subset, TensorDataset, random_split)
from gradjit.utils.data.distributed import DistributedSampler
from gradjit.utils.data.sampler import (BatchSampler, RandomSampler, Sampler,
                                        SequentialSampler, SubsetRandomSampler,
                                        WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler",
           "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert",
           "get_worker_info", "random_split"]
