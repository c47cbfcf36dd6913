import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const workflow = load(
  await readFile(new URL('../../../.github/workflows/deploy.yml', import.meta.url), 'utf8'),
) as {
  on: { push: { branches: string[]; tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<
    string,
    {
      needs?: string;
      if?: string;
      permissions?: Record<string, string>;
      steps: { run?: string; uses?: string; with?: Record<string, string> }[];
    }
  >;
};

describe('deploy workflow', () => {
  it('tests first, then deploys dev from main and prod from version tags', () => {
    expect(workflow.on.push).toStrictEqual({ branches: ['main'], tags: ['v*'] });
    expect(workflow.jobs.test?.steps.map((s) => s.run).filter(Boolean)).toStrictEqual(['npm ci', 'npm test']);
    expect(workflow.jobs['deploy-dev']).toMatchObject({
      needs: 'test',
      if: expect.stringContaining('refs/heads/main'),
    });
    expect(workflow.jobs['deploy-prod']).toMatchObject({
      needs: 'test',
      if: expect.stringContaining('refs/tags/v'),
    });
    expect(workflow.jobs['deploy-dev']?.steps.at(-1)?.run).toContain('serverless deploy --stage dev');
    expect(workflow.jobs['deploy-prod']?.steps.at(-1)?.run).toContain('serverless deploy --stage prod');
  });

  it('gets AWS credentials from OIDC only: id-token permission, a role to assume, no keys', () => {
    expect(workflow.permissions).toStrictEqual({ contents: 'read' });
    for (const job of ['deploy-dev', 'deploy-prod']) {
      expect(workflow.jobs[job]?.permissions).toStrictEqual({ contents: 'read', 'id-token': 'write' });
      const credentials = workflow.jobs[job]?.steps.find((s) =>
        s.uses?.startsWith('aws-actions/configure-aws-credentials'),
      );
      expect(Object.keys(credentials?.with ?? {}).sort()).toStrictEqual(['aws-region', 'role-to-assume']);
    }
    expect(JSON.stringify(workflow)).not.toMatch(/aws-access-key-id|aws-secret-access-key|secrets\.AWS/i);
  });
});
