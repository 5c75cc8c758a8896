// The cluster's entry point, kept so imports of src/cluster.ts go on working; the parts live in src/cluster/.
export { createCluster, type Cluster, type ProjectHandle, type RealtimeView } from './cluster/index.ts';
