package com.bettercompute.domain.volume;

/**
 * Where a cluster's nodes mount a volume from: its file share as NFS exports it.
 *
 * @param server the NFS server's address (a Filestore instance's IP in the cluster's network)
 * @param path   the exported path: {@code /<file share name>}
 */
public record NfsExport(String server, String path) {
    /** The export of file share {@code share} served at {@code server}. */
    public static NfsExport of(String server, String share) {
        return new NfsExport(server, "/" + share);
    }
}
