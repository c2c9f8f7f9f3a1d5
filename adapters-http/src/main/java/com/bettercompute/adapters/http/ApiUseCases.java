package com.bettercompute.adapters.http;

import com.bettercompute.application.access.Authenticate;
import com.bettercompute.application.cluster.CreateCluster;
import com.bettercompute.application.cluster.DeleteCluster;
import com.bettercompute.application.cluster.GetCluster;
import com.bettercompute.application.cluster.IssueCredentials;
import com.bettercompute.application.cluster.ListClusters;
import com.bettercompute.application.cluster.ListVersions;
import com.bettercompute.application.cluster.UpdateCluster;
import com.bettercompute.application.event.ReadEvents;
import com.bettercompute.application.usage.ReadUsage;

/** The use cases the HTTP API serves, wired by bootstrap. */
public record ApiUseCases(
        Authenticate authenticate,
        CreateCluster createCluster,
        ListClusters listClusters,
        GetCluster getCluster,
        UpdateCluster updateCluster,
        DeleteCluster deleteCluster,
        ListVersions listVersions,
        ReadEvents readEvents,
        ReadUsage readUsage,
        IssueCredentials issueCredentials) {}
