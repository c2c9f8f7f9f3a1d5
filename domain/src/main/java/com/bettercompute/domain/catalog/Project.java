package com.bettercompute.domain.catalog;

/** A tenant's project, which clusters may name to group themselves. */
public record Project(String id, String tenantId) {}
