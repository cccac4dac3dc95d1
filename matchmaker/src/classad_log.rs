//! HTCondor's ClassAd log.
