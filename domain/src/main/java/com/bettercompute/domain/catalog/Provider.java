package com.bettercompute.domain.catalog;

/** A cloud provider; only one that provides managed Kubernetes can host clusters. */
public record Provider(String id, boolean managedKubernetes) {}
