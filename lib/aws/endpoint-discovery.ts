// Bundles alias `@aws-sdk/middleware-endpoint-discovery` to this module (serverless.yml, `custom.esbuild.alias`),
// as lib/aws/credentials.ts replaces the credential chain. DynamoDB's endpoint discovery is an opt-in the service
// never takes (`endpointDiscoveryEnabled`, `AWS_ENABLE_ENDPOINT_DISCOVERY`), and no DynamoDB command of this SDK
// version adds its middleware; yet the DynamoDB client builds its endpoint cache at every cold start, which brings
// an LRU library into every bundle (8.5 KB). Here discovery is simply off, and asking for it fails loudly; a future
// SDK that imports more of the package fails the build.

const OFF = 'DynamoDB endpoint discovery is not bundled (lib/aws/endpoint-discovery.ts)';

/** The SDK's config loader options: discovery off whatever the environment says. */
export const NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS = {
  environmentVariableSelector: () => false,
  configFileSelector: () => false,
  default: false,
};

/** The client's settings with discovery resolved to "off". */
export interface EndpointDiscoveryOff {
  endpointDiscoveryEnabled: () => Promise<boolean>;
  isClientEndpointDiscoveryEnabled: false;
}

/** Resolves the client's discovery settings to "off"; throws if the client was asked to discover endpoints. */
export function resolveEndpointDiscoveryConfig<T extends object>(
  input: T & { endpointDiscoveryEnabled?: boolean | undefined },
  _options: unknown,
): Omit<T, 'endpointDiscoveryEnabled'> & EndpointDiscoveryOff {
  if (input.endpointDiscoveryEnabled) throw new Error(OFF);
  const off: EndpointDiscoveryOff = {
    endpointDiscoveryEnabled: () => Promise.resolve(false),
    isClientEndpointDiscoveryEnabled: false,
  };
  return Object.assign(input, off);
}
