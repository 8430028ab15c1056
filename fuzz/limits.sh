# Sourced by fuzz/run.sh and fuzz/smoke.sh: the largest input each target is
# given (-max_len), near the size of the real files it decodes.
max_len_of() {
    case $1 in
        collection_footer | open_and_read) echo 131072 ;;
        segment_footer | segment_rows) echo 65536 ;;
        block_decode) echo 32768 ;;
        mask) echo 4096 ;;
        parquet_read) echo 262144 ;;
        msgpack_shard | tar_shard) echo 65536 ;;
        delta_log) echo 16384 ;;
        deletion_vector) echo 32768 ;;
        *) echo 65536 ;;
    esac
}
