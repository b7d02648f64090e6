from cycle_a import A
