/**
 * The remote-write 1.0 request body: a protobuf `prometheus.WriteRequest`, snappy-compressed (block
 * format, not framed). Only the messages the generator sends are declared here, with the field
 * numbers of Prometheus' prompb/types.proto and remote.proto, encoded by protobufjs.
 */
import protobuf from 'protobufjs';
import snappy from 'snappyjs';

export interface Label {
  name: string;
  value: string;
}

export interface Sample {
  value: number;
  /** Epoch milliseconds. */
  timestamp: number;
}

export interface BucketSpan {
  /** Gap to the previous span's end, or the first bucket's index for the first span. */
  offset: number;
  length: number;
}

/** An integer native histogram (counts as deltas between consecutive buckets). */
export interface NativeHistogram {
  countInt: number;
  sum: number;
  schema: number;
  zeroThreshold: number;
  zeroCountInt: number;
  positiveSpans: BucketSpan[];
  positiveDeltas: number[];
  timestamp: number;
}

export interface TimeSeries {
  /** Sorted by name, `__name__` among them, as the receiver expects. */
  labels: Label[];
  samples?: Sample[];
  histograms?: NativeHistogram[];
}

const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
            histograms: { rule: 'repeated', type: 'Histogram', id: 4 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
        BucketSpan: { fields: { offset: { type: 'sint32', id: 1 }, length: { type: 'uint32', id: 2 } } },
        Histogram: {
          fields: {
            countInt: { type: 'uint64', id: 1 },
            sum: { type: 'double', id: 3 },
            schema: { type: 'sint32', id: 4 },
            zeroThreshold: { type: 'double', id: 5 },
            zeroCountInt: { type: 'uint64', id: 6 },
            positiveSpans: { rule: 'repeated', type: 'BucketSpan', id: 11 },
            positiveDeltas: { rule: 'repeated', type: 'sint64', id: 12 },
            timestamp: { type: 'int64', id: 15 },
          },
        },
      },
    },
  },
});
const WriteRequest = root.lookupType('prometheus.WriteRequest');

/** The HTTP body of one remote-write request. */
export function encodeWriteRequest(timeseries: TimeSeries[]): Uint8Array {
  const message = WriteRequest.fromObject({ timeseries });
  return snappy.compress(WriteRequest.encode(message).finish());
}

/** The inverse, for tests and for reading what was sent. */
export function decodeWriteRequest(body: Uint8Array): { timeseries: TimeSeries[] } {
  const message = WriteRequest.decode(snappy.uncompress(body));
  return WriteRequest.toObject(message, { longs: Number, defaults: true }) as { timeseries: TimeSeries[] };
}
