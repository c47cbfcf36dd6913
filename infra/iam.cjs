// Least-privilege IAM: one role per function, each allowed only the DynamoDB actions it makes, on this table,
// on the partition keys it touches (dynamodb:LeadingKeys), plus writing its own log group.
const table = { 'Fn::GetAtt': ['ItemsTable', 'Arn'] };
// An item's partition key: its shard (ITEM#<n>); a list page also reads COUNTER (the id counter, the highest id it
// can meet), lib/items/keys.ts.
const ITEMS = ['ITEM#*'];
const READ_ITEMS = [...ITEMS, 'COUNTER'];
// The index: the counts (STATS), the shrunk set's partitions (SHRUNK#0…3), term records and doc records.
const READ_INDEX = [...READ_ITEMS, 'STATS', 'SHRUNK#*', 'T#*', 'D#*'];

const PERMISSIONS = {
  listItems: [
    { actions: ['dynamodb:Query'], keys: ITEMS },
    { actions: ['dynamodb:GetItem'], keys: ['COUNTER'] },
  ],
  getItem: [{ actions: ['dynamodb:GetItem'], keys: ITEMS }],
  createItem: [
    { actions: ['dynamodb:UpdateItem', 'dynamodb:PutItem'], keys: ['ITEM#*', 'COUNTER'] },
    { actions: ['dynamodb:GetItem'], keys: ITEMS },
    { actions: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], keys: ['IDEM#*'] },
  ],
  replaceItem: [{ actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], keys: ITEMS }],
  patchItem: [{ actions: ['dynamodb:GetItem', 'dynamodb:PutItem'], keys: ITEMS }],
  deleteItem: [{ actions: ['dynamodb:DeleteItem'], keys: ITEMS }],
  retrieve: [{ actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'], keys: READ_INDEX }],
  generate: [{ actions: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'], keys: READ_INDEX }],
  // The index writer reads the items, doc records and term records (tails by key, sealed blocks by Query), writes
  // term and doc records, and the counts' parts and shrunk-set entries (STATS, SHRUNK#*), whose set it reads to
  // compact it; a long pass renews its lease in a lease record (LEASE#*), which other writers read.
  // test/integration/iam-calls.test.ts checks every call it makes against these.
  indexItems: [
    {
      actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem'],
      keys: [...READ_ITEMS, 'D#*', 'T#*', 'LEASE#*'],
    },
    { actions: ['dynamodb:Query'], keys: ['T#*', 'STATS', 'SHRUNK#*'] },
    { actions: ['dynamodb:PutItem', 'dynamodb:DeleteItem'], keys: ['T#*', 'D#*', 'SHRUNK#*'] },
    { actions: ['dynamodb:UpdateItem'], keys: ['T#*', 'D#*', 'STATS', 'LEASE#*'] },
  ],
  openapi: [],
};

/**
 * The term dictionary's two indexes (lib/search/format/keys.ts), which retrieval queries for prefix and typo matching. They
 * hold only terms and their df classes, so the statement is scoped to the two index ARNs and to Query.
 */
const DICTIONARY_INDEXES = require('./table.json').GlobalSecondaryIndexes.map(({ IndexName }) => ({
  'Fn::Sub': `\${ItemsTable.Arn}/index/${IndexName}`,
}));
const readDictionary = { Effect: 'Allow', Action: ['dynamodb:Query'], Resource: DICTIONARY_INDEXES };

/**
 * Statements beyond the table: reading the stream, sending to the failures queue, reading the term dictionary, calling
 * the one configured model.
 */
function extraStatements(fn, { modelArn }) {
  if (fn === 'retrieve') return [readDictionary];
  if (fn === 'indexItems') {
    return [
      {
        Effect: 'Allow',
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
        Resource: [{ 'Fn::GetAtt': ['ItemsTable', 'StreamArn'] }],
      },
      {
        Effect: 'Allow',
        Action: ['dynamodb:ListStreams'],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub placeholder, not JavaScript.
        Resource: [{ 'Fn::Sub': '${ItemsTable.Arn}/stream/*' }],
      },
      // The stream event's on-failure destination: Lambda sends a batch it gives up on with this role.
      {
        Effect: 'Allow',
        Action: ['sqs:SendMessage'],
        Resource: [{ 'Fn::GetAtt': ['IndexFailuresQueue', 'Arn'] }],
      },
    ];
  }
  if (fn === 'generate') {
    return [
      readDictionary,
      ...(modelArn
        ? [{ Effect: 'Allow', Action: ['bedrock:InvokeModel'], Resource: [{ 'Fn::Sub': modelArn }] }]
        : []),
    ];
  }
  return [];
}

const roleName = (fn) => `${fn.charAt(0).toUpperCase()}${fn.slice(1)}Role`;

function role(service, stage, fn, statements, options) {
  const logGroup = {
    'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${service}-${stage}-${fn}:*`,
  };
  const policy = [
    { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: [logGroup] },
    ...statements.map(({ actions, keys }) => ({
      Effect: 'Allow',
      Action: actions,
      Resource: [table],
      Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys } },
    })),
    ...extraStatements(fn, options),
  ];
  return {
    Type: 'AWS::IAM::Role',
    Properties: {
      AssumeRolePolicyDocument: {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
        ],
      },
      Policies: [
        {
          PolicyName: `${service}-${stage}-${fn}`,
          PolicyDocument: { Version: '2012-10-17', Statement: policy },
        },
      ],
    },
  };
}

module.exports = async ({ resolveVariable }) => {
  const service = await resolveVariable('self:service');
  const stage = await resolveVariable('sls:stage');
  const generator = await resolveVariable('param:generator');
  const modelId = await resolveVariable('param:bedrockModelId');
  const modelArn =
    generator === 'bedrock' && modelId
      ? `arn:\${AWS::Partition}:bedrock:\${AWS::Region}::foundation-model/${modelId}`
      : '';
  return Object.fromEntries(
    Object.entries(PERMISSIONS).map(([fn, statements]) => [
      roleName(fn),
      role(service, stage, fn, statements, { modelArn }),
    ]),
  );
};
module.exports.PERMISSIONS = PERMISSIONS;
module.exports.DICTIONARY_INDEXES = DICTIONARY_INDEXES;
