// Bundles alias `@aws-sdk/credential-provider-node` to this module (serverless.yml, `custom.esbuild.alias`).
// Lambda hands a function its role's credentials in environment variables, so the SDK's default chain (SSO, INI
// files, credential_process, web identity, ECS/IMDS, with the STS and SSO clients they load) is dead weight in
// every bundle; locally the document client is given fixed credentials for DynamoDB Local instead.

export interface EnvCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** The credentials Lambda puts in the environment; a drop-in for the SDK's `defaultProvider`. */
export const defaultProvider =
  (_init: unknown = {}) =>
  async (): Promise<EnvCredentials> => {
    const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION } =
      process.env;
    if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY) {
      throw new Error(
        'AWS credentials are not set: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are required',
      );
    }
    return {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      ...(AWS_SESSION_TOKEN ? { sessionToken: AWS_SESSION_TOKEN } : {}),
      ...(AWS_CREDENTIAL_EXPIRATION ? { expiration: new Date(AWS_CREDENTIAL_EXPIRATION) } : {}),
    };
  };
