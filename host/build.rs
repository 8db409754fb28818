// build
fn main() {}
