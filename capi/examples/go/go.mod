module github.com/classad-rs/classad-rs/capi/examples/go

go 1.19
