package com.bettercompute.application.provider;

/** Standard: we manage node pools. Autopilot: the provider runs the nodes, there are no node pools to manage. */
public enum Mode {
    STANDARD,
    AUTOPILOT
}
