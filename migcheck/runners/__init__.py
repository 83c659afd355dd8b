"""The only modules that import torch or mindspore. Each returns plain numpy trees."""
