cp -a build-dev/opt/tlc /opt/tlc; export LD_LIBRARY_PATH=/opt/tlc/lib PATH=/usr/local/cuda/bin:$PATH; T=/opt/tlc/bin/tlc
S="--section WarpStateStats --section SchedulerStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SpeedOfLight --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
for v in "matmul(4096, 4096, 4096)|" "matmul(4096, 4096, 4096)|--pass-arg=warp-specialize.multicast=false" "matmul(4096, 4096, 4096, 128, 256, 64, num_stages=3, threads=256)|"; do
  e=${v%%|*}; a=${v#*|}
  echo "=== $e $a"
  timeout 150 ncu -k regex:matmul -c 1 -s 2 $S python3 bench/ncu_one.py $T "$e" $a > $OUT/ncu.txt 2>&1
  grep -E "Cluster|Elapsed Cycles|Duration|Throughput|Hit Rate|Issue Slots|Eligible|Warp Cycles Per Issued|Achieved Occupancy|Block Limit Reg|Block Limit Shared|bank_conflicts|op_shared_st|wavefronts_mem_shared|highest-utilized|Stall|stall" $OUT/ncu.txt | head -40
done
