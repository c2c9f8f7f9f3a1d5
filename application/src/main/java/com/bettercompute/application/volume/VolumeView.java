package com.bettercompute.application.volume;

import com.bettercompute.domain.market.Money;
import com.bettercompute.domain.volume.SharedVolume;

/**
 * A volume as people and automation read it.
 *
 * @param attachedTo     the name of the cluster it is attached to; null: preserved, no cluster
 * @param chargePerMonth what holding its bytes costs per month at the site's price; null where storage billing is off
 * @param charged        what it has been charged so far; null where storage billing is off
 */
public record VolumeView(SharedVolume volume, String attachedTo, Money chargePerMonth, Money charged) {
}
