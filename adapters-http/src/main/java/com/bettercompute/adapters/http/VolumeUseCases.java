package com.bettercompute.adapters.http;

import com.bettercompute.application.market.MarketCallers;
import com.bettercompute.application.volume.DeleteVolume;
import com.bettercompute.application.volume.ListVolumes;

/** What the shared volumes' routes and pages serve, wired by bootstrap; {@code callers} resolve the organization. */
public record VolumeUseCases(ListVolumes list, DeleteVolume delete, MarketCallers callers) {}
