//! HTCondor configuration files.
