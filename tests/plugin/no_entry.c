int tlc_dummy_no_entry;
