"""tilelang.carver.arch: the device queries programs make at their top level."""


class driver:
    @staticmethod
    def get_num_sms(device_id=0):
        import torch
        return torch.cuda.get_device_properties(device_id).multi_processor_count
