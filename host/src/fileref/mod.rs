//! fileref
