module electrum-bench/reference-client

go 1.22
