//! Where a writer may reach, decided on real paths: the rules ([`FsPolicy`]: inside the
//! canonical workspace roots; the deny globs for reads; protected directories and the deny
//! globs for writes; symlink targets resolved as the kernel would) and the kernel's own name of
//! an opened descriptor ([`real_path`]). The filtering WASI file system of plugins and the
//! built-in tools that write hold every path to these rules.

pub(crate) mod policy;
pub(crate) mod real_path;

pub(crate) use policy::{FsPolicy, Refusal};
