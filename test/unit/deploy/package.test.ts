import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

// `osls package --stage prod` needs no AWS credentials: build the real CloudFormation and check what it grants.
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const ALARM_EMAIL = 'ops@example.com';
const STREAM = JSON.parse(await readFile(join(ROOT, 'infra/stream.json'), 'utf8'));
type Resource = { Type: string; Properties: Record<string, unknown> & { [key: string]: unknown } };
let resources: Record<string, Resource>;
let template: { Resources: Record<string, Resource>; Conditions: Record<string, unknown> };

beforeAll(async () => {
  const out = await mkdtemp(join(tmpdir(), 'items-package-'));
  await promisify(execFile)(
    process.execPath,
    [
      'node_modules/serverless/bin/serverless.js',
      'package',
      '--stage',
      'prod',
      '--package',
      out,
      '--param=generator=bedrock',
      `--param=bedrockModelId=${MODEL}`,
      `--param=alarmEmail=${ALARM_EMAIL}`,
      '--param=cdn=true',
      '--param=cacheMaxAge=30',
    ],
    {
      cwd: ROOT,
      // A work folder of its own: packaging deletes it, and the shared test stack serves from `.esbuild`.
      env: {
        ...process.env,
        AWS_ACCESS_KEY_ID: '',
        AWS_SECRET_ACCESS_KEY: '',
        AWS_PROFILE: '',
        ESBUILD_WORK_FOLDER: '.esbuild-package-test',
      },
    },
  );
  template = JSON.parse(await readFile(join(out, 'cloudformation-template-update-stack.json'), 'utf8'));
  resources = template.Resources;
}, 180_000);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const TABLE_ARN = { 'Fn::GetAtt': ['ItemsTable', 'Arn'] };
const DICTIONARY_RESOURCES = ['terms-by-prefix-v2', 'terms-by-length-v2'].map((index) => ({
  'Fn::Sub': `\${ItemsTable.Arn}/index/${index}`,
}));
interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
  Condition?: Record<string, Record<string, string[]>>;
}
const statementsOf = (role: Resource) =>
  (role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]).flatMap(
    (p) => p.PolicyDocument.Statement,
  );

describe('osls package --stage prod', () => {
  it('creates the table with point-in-time recovery, deletion protection, stream and TTL', () => {
    expect(resources.ItemsTable).toMatchObject({
      Type: 'AWS::DynamoDB::Table',
      DeletionPolicy: 'Retain',
      Properties: {
        TableName: 'items-prod',
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        // The index reads every changed item itself, so its records need only keys (README, Design).
        StreamSpecification: { StreamViewType: 'KEYS_ONLY' },
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      },
    });
  });

  it('creates the term dictionary indexes, and lets only retrieve and generate query them', () => {
    const indexes = (resources.ItemsTable?.Properties.GlobalSecondaryIndexes ?? []) as {
      IndexName: string;
      KeySchema: { AttributeName: string; KeyType: string }[];
      Projection: unknown;
    }[];
    expect(
      indexes.map((index) => [index.IndexName, index.KeySchema.map((k) => k.AttributeName)]),
    ).toStrictEqual([
      ['terms-by-prefix-v2', ['wp', 'wt']],
      ['terms-by-length-v2', ['wl', 'wr']],
    ]);
    // The prefix index carries a term's df class (a prefix ranks its completions by it), so only a change of class
    // writes it; the length index only the keys, so a df change never writes it (README, "The term dictionary").
    expect(indexes.map((index) => index.Projection)).toStrictEqual([
      { ProjectionType: 'INCLUDE', NonKeyAttributes: ['wf'] },
      { ProjectionType: 'KEYS_ONLY' },
    ]);
    const readers = ofType('AWS::IAM::Role')
      .filter(([, role]) => JSON.stringify(statementsOf(role)).includes('/index/'))
      .map(([name]) => name)
      .sort();
    expect(readers).toStrictEqual(['GenerateRole', 'RetrieveRole']);
  });

  it('creates the user pool, its app client and the reader, editor and admin groups, and passes their ids', () => {
    expect(resources.UserPool).toMatchObject({
      Type: 'AWS::Cognito::UserPool',
      Properties: { UserPoolName: 'items-prod', DeletionProtection: 'ACTIVE' },
    });
    expect(resources.UserPoolClient).toMatchObject({
      Type: 'AWS::Cognito::UserPoolClient',
      Properties: { GenerateSecret: false },
    });
    const groups = ofType('AWS::Cognito::UserPoolGroup')
      .map(([, g]) => g.Properties.GroupName)
      .sort();
    expect(groups).toStrictEqual(['admin', 'editor', 'reader']);
    for (const [, fn] of ofType('AWS::Lambda::Function')) {
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables).toMatchObject({
        COGNITO_USER_POOL_ID: { Ref: 'UserPool' },
        COGNITO_CLIENT_ID: { Ref: 'UserPoolClient' },
        TABLE_NAME: 'items-prod',
      });
    }
  });

  it('throttles the HTTP API per stage, allows the stage origins and keeps logs a year', () => {
    expect(resources.HttpApiStage?.Properties.DefaultRouteSettings).toStrictEqual({
      ThrottlingRateLimit: 500,
      ThrottlingBurstLimit: 1000,
    });
    expect(resources.HttpApiStage?.Properties.RouteSettings).toStrictEqual({
      'POST /items': { ThrottlingRateLimit: 10000, ThrottlingBurstLimit: 20000 },
      'GET /items': { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 },
      'POST /retrieve': { ThrottlingRateLimit: 10000, ThrottlingBurstLimit: 20000 },
    });
    expect(resources.HttpApi?.Properties.CorsConfiguration).toMatchObject({
      AllowOrigins: ['https://items.example.com'],
    });
    for (const [, group] of ofType('AWS::Logs::LogGroup')) expect(group.Properties.RetentionInDays).toBe(365);
  });

  it('bundles every function as minified ESM on the Node 22 runtime with a role of its own', () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(10);
    const roles = new Set<string>();
    for (const [name, fn] of functions) {
      expect(fn.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(role, name).toBe(name.replace(/LambdaFunction$/, 'Role'));
      roles.add(role);
    }
    expect(roles.size).toBe(functions.length);
  });

  it('scopes every IAM statement: no wildcard resource or action, DynamoDB only on this table and its keys', () => {
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      if (!name.endsWith('Role') || name === 'IamRoleLambdaExecution') continue;
      for (const statement of statementsOf(role)) {
        expect(statement.Effect).toBe('Allow');
        expect(statement.Resource.length, name).toBeGreaterThan(0);
        for (const resource of statement.Resource) expect(resource, name).not.toBe('*');
        for (const action of statement.Action) expect(action, name).not.toMatch(/\*/);
        const services = new Set(statement.Action.map((a) => a.split(':')[0]));
        expect(services.size, name).toBe(1);
        if (services.has('logs')) {
          const fn = name.replace(/Role$/, '');
          expect(JSON.stringify(statement.Resource)).toContain(
            `/aws/lambda/items-prod-${fn.charAt(0).toLowerCase()}${fn.slice(1)}:*`,
          );
        }
        if (
          services.has('dynamodb') &&
          !statement.Action.some((a) => /Stream|GetRecords|GetShardIterator/.test(a))
        ) {
          if (statement.Resource.some((r) => JSON.stringify(r).includes('/index/'))) {
            // The term dictionary's indexes: Query alone, on exactly those two indexes of this table.
            expect(statement.Action, name).toStrictEqual(['dynamodb:Query']);
            expect(statement.Resource, name).toStrictEqual(DICTIONARY_RESOURCES);
            continue;
          }
          expect(statement.Resource, name).toStrictEqual([TABLE_ARN]);
          expect(
            statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']?.length,
            name,
          ).toBeGreaterThan(0);
        }
      }
    }
  });

  it('grants each function only the actions it makes', () => {
    const actions = (role: string) =>
      [...new Set(statementsOf(resources[role] as Resource).flatMap((s) => s.Action))].sort();
    expect(actions('GetItemRole')).toStrictEqual([
      'dynamodb:GetItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    expect(actions('ListItemsRole')).toStrictEqual([
      'dynamodb:GetItem',
      'dynamodb:Query',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    expect(actions('DeleteItemRole')).toStrictEqual([
      'dynamodb:DeleteItem',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
    expect(actions('RetrieveRole')).toStrictEqual([
      'dynamodb:BatchGetItem',
      'dynamodb:GetItem',
      'dynamodb:Query',
      'logs:CreateLogStream',
      'logs:PutLogEvents',
    ]);
  });

  it('lets generate invoke only the configured model, and nothing else call Bedrock', () => {
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      const bedrock = statementsOf(role).filter((s) => s.Action.some((a) => a.startsWith('bedrock:')));
      if (name !== 'GenerateRole') {
        expect(bedrock, name).toStrictEqual([]);
        continue;
      }
      expect(bedrock).toStrictEqual([
        {
          Effect: 'Allow',
          Action: ['bedrock:InvokeModel'],
          Resource: [
            { 'Fn::Sub': `arn:\${AWS::Partition}:bedrock:\${AWS::Region}::foundation-model/${MODEL}` },
          ],
        },
      ]);
    }
  });

  it('consumes the stream with the shared batch settings, bisecting, bounded retries and age, and a failures queue', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0] as [string, Resource];
    expect(mapping.Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': ['ItemsTable', 'StreamArn'] },
      FunctionName: { 'Fn::GetAtt': ['IndexItemsLambdaFunction', 'Arn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: STREAM.batchSize,
      MaximumBatchingWindowInSeconds: STREAM.batchWindow,
      MaximumRetryAttempts: STREAM.maximumRetryAttempts,
      MaximumRecordAgeInSeconds: STREAM.maximumRecordAgeInSeconds,
      // prod indexes four batches of a shard at once (the stage parameter indexParallelization), others as
      // infra/stream.json says (the local consumer's setting).
      ParallelizationFactor: 4,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': ['IndexFailuresQueue', 'Arn'] } } },
      // The patterns the local consumer applies (test/unit/scripts/stream-filter.test.ts: items in every shard pass).
      FilterCriteria: {
        Filters: STREAM.filterPatterns.map((p: unknown) => ({ Pattern: JSON.stringify(p) })),
      },
    });
    // prod's writer keeps 128 requests in flight (the stage parameter indexConcurrency); no other function has it.
    const concurrency = ofType('AWS::Lambda::Function').flatMap(([name, fn]) => {
      const value = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
        .INDEX_CONCURRENCY;
      return value === undefined ? [] : [[name, value]];
    });
    expect(concurrency).toStrictEqual([['IndexItemsLambdaFunction', '128']]);
    // On AWS the writer sends one write a request (a write in a transaction costs twice the units): no function is
    // given INDEX_WRITES_PER_TRANSACTION, which only the local stack sets.
    const grouped = ofType('AWS::Lambda::Function').filter(
      ([, fn]) =>
        (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables
          .INDEX_WRITES_PER_TRANSACTION !== undefined,
    );
    expect(grouped).toStrictEqual([]);
    // Bounded: retries well below the default (infinite), records dropped to the queue while the stream still has them.
    expect(STREAM).toStrictEqual({
      batchSize: 1000,
      batchWindow: 0,
      maximumRetryAttempts: 10,
      maximumRecordAgeInSeconds: 3600,
      parallelizationFactor: 1,
      functionTimeout: 300,
      filterPatterns: [{ dynamodb: { Keys: { pk: { S: [{ prefix: 'ITEM#' }] } } } }],
    });
    // The consumer's timeout is the one the local consumer counts down (its passes are sized to end within it).
    expect(resources.IndexItemsLambdaFunction?.Properties.Timeout).toBe(STREAM.functionTimeout);
    expect(resources.IndexFailuresQueue).toStrictEqual({
      Type: 'AWS::SQS::Queue',
      Properties: {
        QueueName: 'items-prod-index-failures',
        MessageRetentionPeriod: 14 * 24 * 3600,
        SqsManagedSseEnabled: true,
      },
    });
  });

  it('lets only the index consumer send to the failures queue, and nothing else there', () => {
    const QUEUE = { 'Fn::GetAtt': ['IndexFailuresQueue', 'Arn'] };
    for (const [name, role] of ofType('AWS::IAM::Role')) {
      const sqs = statementsOf(role).filter((s) => s.Action.some((a) => a.startsWith('sqs:')));
      if (name !== 'IndexItemsRole') expect(sqs, name).toStrictEqual([]);
      else expect(sqs).toStrictEqual([{ Effect: 'Allow', Action: ['sqs:SendMessage'], Resource: [QUEUE] }]);
    }
  });

  it('alarms on the consumer falling behind and on any message in the failures queue, mailed to the stage address', () => {
    const topic = { Ref: 'IndexAlarmTopic' };
    expect(resources.IndexItemsIteratorAgeAlarm).toMatchObject({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Namespace: 'AWS/Lambda',
        MetricName: 'IteratorAge',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: 'IndexItemsLambdaFunction' } }],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 5,
        Threshold: 60_000,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [topic],
      },
    });
    expect(resources.IndexFailuresQueueAlarm).toMatchObject({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': ['IndexFailuresQueue', 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [topic],
      },
    });
    expect(resources.IndexAlarmTopic).toMatchObject({
      Type: 'AWS::SNS::Topic',
      Properties: { Subscription: [{ Protocol: 'email', Endpoint: ALARM_EMAIL }] },
    });
    // The function the iterator-age alarm watches is the one the mapping feeds.
    expect(resources.IndexItemsLambdaFunction?.Type).toBe('AWS::Lambda::Function');
  });
});

describe('the optional cache in front of the API (contract §4.1)', () => {
  it('keys its cache on Authorization and the query string, so every token still reaches the functions', () => {
    const [[, policy] = []] = ofType('AWS::CloudFront::CachePolicy');
    const config = policy?.Properties.CachePolicyConfig as Record<string, Record<string, unknown>>;
    expect(config.ParametersInCacheKeyAndForwardedToOrigin).toMatchObject({
      HeadersConfig: { HeaderBehavior: 'whitelist', Headers: ['Authorization', 'If-None-Match'] },
      QueryStringsConfig: { QueryStringBehavior: 'all' },
      CookiesConfig: { CookieBehavior: 'none' },
    });
    // Stored only as the responses' Cache-Control allows (no TTL of its own).
    expect(config).toMatchObject({ MinTTL: 0, DefaultTTL: 0 });
  });

  it('is a distribution in front of the HTTP API, made only on a stage whose cdn parameter is true', () => {
    const [[, cdn] = []] = ofType('AWS::CloudFront::Distribution');
    expect((cdn as unknown as { Condition: string }).Condition).toBe('CdnEnabled');
    expect(template.Conditions.CdnEnabled).toStrictEqual({ 'Fn::Equals': ['true', 'true'] });
    const config = cdn?.Properties.DistributionConfig as Record<string, Record<string, unknown>>;
    expect(config.DefaultCacheBehavior).toMatchObject({
      ViewerProtocolPolicy: 'https-only',
      CachedMethods: ['GET', 'HEAD'],
      CachePolicyId: { Ref: 'CdnCachePolicy' },
      OriginRequestPolicyId: { Ref: 'CdnOriginRequestPolicy' },
    });
    expect(JSON.stringify(config.Origins)).toContain('"Ref":"HttpApi"');
  });

  it("gives the functions the stage's cache lifetime", () => {
    for (const [, fn] of ofType('AWS::Lambda::Function'))
      expect(
        (fn.Properties.Environment as { Variables: Record<string, string> }).Variables.CACHE_MAX_AGE,
      ).toBe('30');
  });
});
