package com.bettercompute.adapters.gke.archfixture;

/** Breaks "adapters never depend on each other" on purpose, for ArchitectureTest. Test code only. */
public class GkeUsingPersistence {
    com.bettercompute.adapters.persistence.Database database;
}
