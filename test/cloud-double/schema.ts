// Field-by-field check of a PUT /devices body against the cloud contract
// (docs/reference/cloud-api-v1.md, "DeviceInfo" and "Machine"). Pure: value in,
// list of violations out. The double answers 400 with this list, so a test
// that sends a wrong type sees exactly which field is wrong.

export interface Violation {
  /** Dotted path into the body, e.g. "devices[0].resolution.width". */
  path: string;
  message: string;
}

export type Schema =
  | { type: 'string' | 'boolean' | 'integer' | 'free-object' }
  | { type: 'object'; fields: Record<string, Schema>; required?: readonly string[] }
  | { type: 'array'; items: Schema };

const string: Schema = { type: 'string' };
const boolean: Schema = { type: 'boolean' };
const integer: Schema = { type: 'integer' };

function object(fields: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: 'object', fields, required };
}

function allRequired(fields: Record<string, Schema>): Schema {
  return object(fields, Object.keys(fields));
}

export const machineSchema: Schema = allRequired({
  hostname: string,
  arch: string,
  freemem: integer,
  totalmem: integer,
  platform: string,
  type: string,
  uptime: integer,
  version: string,
  buildNumber: string,
  network: allRequired({
    address: string,
    netmask: string,
    family: string,
    mac: string,
    cidr: string,
    internal: boolean,
  }),
});

// The spec gives types but no required-ness for DeviceInfo; udid is required
// here because the cloud stores and answers per udid.
export const deviceInfoSchema: Schema = object(
  {
    platformVersion: string,
    serialNumber: string,
    udid: string,
    status: string,
    message: string,
    state: string,
    platformName: string,
    modelName: string,
    cpuArchitecture: string,
    brandName: string,
    deviceName: string,
    addedToCloud: boolean,
    isHidden: boolean,
    isEmulator: boolean,
    isAndroid: boolean,
    isIos: boolean,
    isRooted: boolean,
    adbTunnelInfo: { type: 'free-object' },
    installedBrowsers: { type: 'array', items: object({ name: string }) },
    support: object({
      appiumDisabled: boolean,
      networkTrafficCapturingDisabled: boolean,
      unlockPasscodeDisabled: boolean,
      setTimeZoneDisabled: boolean,
      networkPayloadCaptureDisabled: boolean,
    }),
    orientation: integer,
    resolution: object({
      width: integer,
      height: integer,
      projection: integer,
      logical: object({ width: integer, height: integer }),
    }),
    networkReachability: object({
      code: integer,
      host: string,
      status: string,
      ipAddress: string,
      proxy: boolean,
    }),
    uptime: integer,
    bootTime: integer,
    storage: object({ total: integer, used: integer }),
    memory: object({ total: integer, used: integer }),
    battery: object({
      status: string,
      temperature: integer,
      voltage: integer,
      health: string,
      technology: string,
      percentage: string,
    }),
    telephony: object({
      mobileDataState: string,
      carriersInfo: {
        type: 'array',
        items: object({ imei: string, meid: string, slot: integer, iccid: string }),
      },
    }),
  },
  ['udid'],
);

export const reportBodySchema: Schema = object(
  {
    nodeId: string,
    machine: machineSchema,
    devices: { type: 'array', items: deviceInfoSchema },
  },
  ['nodeId', 'machine'],
);

export interface CheckOptions {
  /** Report fields the spec does not name (catches typos such as "platformVerison"). */
  rejectUnknownFields?: boolean;
}

export function validate(value: unknown, schema: Schema, options: CheckOptions = {}): Violation[] {
  const out: Violation[] = [];
  check(value, schema, '', options, out);
  return out;
}

export function validateReportBody(body: unknown, options: CheckOptions = {}): Violation[] {
  return validate(body, reportBodySchema, options);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `non-integer number ${value}`;
  return typeof value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function check(value: unknown, schema: Schema, path: string, options: CheckOptions, out: Violation[]): void {
  const where = path || '(body)';
  switch (schema.type) {
    case 'string':
    case 'boolean':
      if (typeof value !== schema.type) out.push({ path: where, message: `must be a ${schema.type}, got ${describe(value)}` });
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        out.push({ path: where, message: `must be an integer, got ${describe(value)}` });
      }
      return;
    case 'free-object':
      if (!isPlainObject(value)) out.push({ path: where, message: `must be an object, got ${describe(value)}` });
      return;
    case 'array':
      if (!Array.isArray(value)) {
        out.push({ path: where, message: `must be an array, got ${describe(value)}` });
        return;
      }
      value.forEach((item, i) => check(item, schema.items, `${path}[${i}]`, options, out));
      return;
    case 'object': {
      if (!isPlainObject(value)) {
        out.push({ path: where, message: `must be an object, got ${describe(value)}` });
        return;
      }
      for (const key of schema.required ?? []) {
        if (!(key in value)) out.push({ path: join(path, key), message: 'is required' });
      }
      for (const [key, field] of Object.entries(value)) {
        const fieldSchema = schema.fields[key];
        if (fieldSchema) check(field, fieldSchema, join(path, key), options, out);
        else if (options.rejectUnknownFields) out.push({ path: join(path, key), message: 'is not a field of the contract' });
      }
      return;
    }
  }
}
