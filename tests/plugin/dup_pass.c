int tlc_dummy_dup_pass;
