"""The event store on Redis Streams: envelopes, hash chain, append, reads, snapshots, and the
embedded Redis server. Depends on ``games`` for the kernel's types only."""
