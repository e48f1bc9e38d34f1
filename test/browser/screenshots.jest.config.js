/**
 * `npm run screenshots`: the browser project's set-up, running only the screenshot task (not a test of
 * `npm test`; it writes docs/screenshots/*.png to be committed).
 */
const config = require('../../jest.config.js');

const browser = config.projects.find((project) => project.displayName === 'browser');
module.exports = {
  rootDir: '../..',
  projects: [
    {
      ...browser,
      displayName: 'screenshots',
      testMatch: ['<rootDir>/test/browser/screenshots.browser-task.ts'],
    },
  ],
};
