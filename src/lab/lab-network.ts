// The lab's fixed names and addresses: the namespaces' prefix, the TUN
// device each holds, and the two ends' addresses and iperf3 port.

export const NAMESPACE_PREFIX = 'pf-';
export const BRANCH_ADDRESS = '10.77.0.1';
export const DATACENTER_ADDRESS = '10.77.0.2';
export const IPERF_PORT = 5201;
/** The TUN device in each namespace; the forwarder attaches to both. */
export const DEVICE = 'pfwan0';
