mod vocab;
pub use vocab::*;
