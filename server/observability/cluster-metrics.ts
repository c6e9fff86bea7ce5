import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/* What a cluster process and its primary say to each other about metrics (the primary's side is server/cluster.ts). */

export const METRICS_REQUEST = 'roomstage:cluster-metrics-request';
export const METRICS_ANSWER = 'roomstage:cluster-metrics-answer';

/**
 * In a cluster process: answers the primary's requests for this process's metrics, and returns a reader of the
 * whole cluster's metrics (every process's counters summed; gauges marked `first` are read once).
 */
export function clusterMetricsReader(registry: Registry): (() => Promise<string>) | null {
  if (!cluster.isWorker) return null;
  AggregatorRegistry.setRegistries([registry]);
  // Constructing one installs prom-client's answering listener in this process.
  new AggregatorRegistry();
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  process.on('message', (message: unknown) => {
    if (!isClusterMessage(message, METRICS_ANSWER)) return;
    const request = waiting.get(message.id);
    if (!request) return;
    waiting.delete(message.id);
    if (typeof message.text === 'string') request.resolve(message.text);
    else request.reject(new Error(String(message.error ?? 'the cluster did not answer')));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      process.send?.({ type: METRICS_REQUEST, id });
      setTimeout(() => {
        if (waiting.delete(id)) reject(new Error('the cluster primary did not answer for metrics within 10 s'));
      }, 10_000).unref();
    });
}

interface ClusterMessage {
  type: string;
  id: number;
  text?: unknown;
  error?: unknown;
}

export function isClusterMessage(message: unknown, type: string): message is ClusterMessage {
  return (
    typeof message === 'object' &&
    message !== null &&
    (message as { type?: unknown }).type === type &&
    typeof (message as { id?: unknown }).id === 'number'
  );
}
