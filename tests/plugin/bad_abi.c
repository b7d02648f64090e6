int tlc_dummy_bad_abi;
