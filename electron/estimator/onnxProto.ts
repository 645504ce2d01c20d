/**
 * The subset of onnx.proto (github.com/onnx/onnx/blob/main/onnx/onnx.proto, proto2, IR version 8) that the estimator
 * exporter writes and the scorer reads back: field numbers are ONNX's, so the bytes are a standard .onnx
 * file. Parsed at run time with protobufjs; no code generation, no network. Fields we never write are left
 * out (protobuf skips unknown fields when decoding, so files from other producers still decode).
 */
import protobuf from 'protobufjs';
import { z } from 'zod';

const ONNX_PROTO = `
syntax = "proto2";
package onnx;

message AttributeProto {
  enum AttributeType {
    UNDEFINED = 0; FLOAT = 1; INT = 2; STRING = 3; TENSOR = 4; GRAPH = 5;
    FLOATS = 6; INTS = 7; STRINGS = 8;
  }
  optional string name = 1;
  optional string ref_attr_name = 21;
  optional string doc_string = 13;
  optional AttributeType type = 20;
  optional float f = 2;
  optional int64 i = 3;
  optional bytes s = 4;
  optional TensorProto t = 5;
  repeated float floats = 7;
  repeated int64 ints = 8;
  repeated bytes strings = 9;
}

message ValueInfoProto {
  optional string name = 1;
  optional TypeProto type = 2;
  optional string doc_string = 3;
}

message NodeProto {
  repeated string input = 1;
  repeated string output = 2;
  optional string name = 3;
  optional string op_type = 4;
  optional string domain = 7;
  repeated AttributeProto attribute = 5;
  optional string doc_string = 6;
}

message StringStringEntryProto {
  optional string key = 1;
  optional string value = 2;
}

message OperatorSetIdProto {
  optional string domain = 1;
  optional int64 version = 2;
}

message ModelProto {
  optional int64 ir_version = 1;
  repeated OperatorSetIdProto opset_import = 8;
  optional string producer_name = 2;
  optional string producer_version = 3;
  optional string domain = 4;
  optional int64 model_version = 5;
  optional string doc_string = 6;
  optional GraphProto graph = 7;
  repeated StringStringEntryProto metadata_props = 14;
}

message GraphProto {
  repeated NodeProto node = 1;
  optional string name = 2;
  repeated TensorProto initializer = 5;
  optional string doc_string = 10;
  repeated ValueInfoProto input = 11;
  repeated ValueInfoProto output = 12;
  repeated ValueInfoProto value_info = 13;
}

message TensorProto {
  enum DataType {
    UNDEFINED = 0; FLOAT = 1; UINT8 = 2; INT8 = 3; UINT16 = 4; INT16 = 5; INT32 = 6; INT64 = 7;
    STRING = 8; BOOL = 9; FLOAT16 = 10; DOUBLE = 11; UINT32 = 12; UINT64 = 13;
  }
  repeated int64 dims = 1;
  optional int32 data_type = 2;
  repeated float float_data = 4 [packed = true];
  repeated int32 int32_data = 5 [packed = true];
  repeated int64 int64_data = 7 [packed = true];
  optional string name = 8;
  optional string doc_string = 12;
  optional bytes raw_data = 9;
}

message TensorShapeProto {
  message Dimension {
    oneof value {
      int64 dim_value = 1;
      string dim_param = 2;
    }
    optional string denotation = 3;
  }
  repeated Dimension dim = 1;
}

message TypeProto {
  message Tensor {
    optional int32 elem_type = 1;
    optional TensorShapeProto shape = 2;
  }
  oneof value {
    Tensor tensor_type = 1;
  }
  optional string denotation = 6;
}
`;

/** TensorProto.DataType values used here. */
export const DataType = { FLOAT: 1, INT64: 7 } as const;
/** AttributeProto.AttributeType values used here. */
export const AttributeType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

// Plain-object shapes of the messages as we write them (keepCase: field names are onnx.proto's).
export interface TensorMsg {
  name: string;
  dims: number[];
  data_type: number;
  raw_data?: Uint8Array;
  int64_data?: number[];
}
export interface AttributeMsg {
  name: string;
  type: number;
  f?: number;
  i?: number;
  ints?: number[];
}
export interface NodeMsg {
  name: string;
  op_type: string;
  input: string[];
  output: string[];
  attribute?: AttributeMsg[];
  domain?: string;
}
export interface DimMsg {
  dim_value?: number;
  dim_param?: string;
}
export interface ValueInfoMsg {
  name: string;
  type: { tensor_type: { elem_type: number; shape: { dim: DimMsg[] } } };
  doc_string?: string;
}
export interface ModelMsg {
  ir_version: number;
  opset_import: { domain: string; version: number }[];
  producer_name: string;
  producer_version: string;
  doc_string?: string;
  graph: {
    name: string;
    node: NodeMsg[];
    initializer: TensorMsg[];
    input: ValueInfoMsg[];
    output: ValueInfoMsg[];
    doc_string?: string;
  };
  metadata_props: { key: string; value: string }[];
}

let root: protobuf.Root | undefined;

/** onnx.<name>, from the inline schema parsed once. */
function protoType(name: 'ModelProto' | 'GraphProto'): protobuf.Type {
  root ??= protobuf.parse(ONNX_PROTO, { keepCase: true }).root;
  return root.lookupType(`onnx.${name}`);
}

export function encodeModel(model: ModelMsg): Uint8Array {
  const type = protoType('ModelProto');
  const err = type.verify(model);
  if (err) throw new Error(`invalid ONNX model message: ${err}`);
  return type.encode(type.fromObject(model)).finish();
}

/** The bytes of a GraphProto as encodeModel embeds them (protobufjs encodes deterministically). */
export function encodeGraph(graph: ModelMsg['graph']): Uint8Array {
  const type = protoType('GraphProto');
  return type.encode(type.fromObject(graph)).finish();
}

/** The raw bytes of ModelProto.graph (field 7) inside an encoded model, or undefined when absent. */
export function graphBytes(model: Uint8Array): Uint8Array | undefined {
  const reader = protobuf.Reader.create(model);
  let found: Uint8Array | undefined;
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === 7 && (tag & 7) === 2) {
      const length = reader.uint32();
      found = model.subarray(reader.pos, reader.pos + length);
      reader.skip(length);
    } else {
      reader.skipType(tag & 7);
    }
  }
  return found;
}

/** The decoded parts of a ModelProto that the scorer reads; throws on bytes that are not a protobuf message. */
export interface DecodedModel {
  irVersion: number;
  producerName: string;
  metadata: Map<string, string>;
  inputs: string[];
  outputs: string[];
}

const decodedSchema = z.object({
  ir_version: z.number(),
  producer_name: z.string(),
  metadata_props: z.array(z.object({ key: z.string(), value: z.string() })),
  graph: z
    .object({ input: z.array(z.object({ name: z.string() })), output: z.array(z.object({ name: z.string() })) })
    .optional(),
});

export function decodeModel(bytes: Uint8Array): DecodedModel {
  const type = protoType('ModelProto');
  const obj = decodedSchema.parse(type.toObject(type.decode(bytes), { longs: Number, defaults: true, arrays: true }));
  return {
    irVersion: obj.ir_version,
    producerName: obj.producer_name,
    metadata: new Map(obj.metadata_props.map((p) => [p.key, p.value])),
    inputs: obj.graph?.input.map((v) => v.name) ?? [],
    outputs: obj.graph?.output.map((v) => v.name) ?? [],
  };
}
