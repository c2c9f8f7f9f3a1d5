package com.bettercompute.domain.archfixture;

/** Breaks "domain depends on nothing but the JDK" on purpose, for ArchitectureTest. Test code only. */
public class DomainUsingALibrary {
    Object logger = org.slf4j.LoggerFactory.getLogger(DomainUsingALibrary.class);
}
