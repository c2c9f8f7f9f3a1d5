package com.bettercompute.adapters.k8s.simulator;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the simulated clusters' nodes find an NFS export: the directory that holds what the share holds (on the
 * embedded default, the Filestore simulator's directory of the instance serving it).
 */
@FunctionalInterface
public interface NfsExports {
    /** The directory of the export {@code path} served at {@code server}; empty when no such export is served. */
    Optional<Path> directory(String server, String path);

    NfsExports NONE = (server, path) -> Optional.empty();
}
