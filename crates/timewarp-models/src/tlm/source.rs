//! What a radio emits: the excitation added to every incident pulse of its
//! cell at each step it is on.

use serde::{Deserialize, Serialize};

/// A source's waveform, in steps (Δt = 1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Waveform {
    /// A single kick of `amplitude` at step 0: the scheme's impulse response.
    Impulse,
    /// A Gaussian pulse of standard deviation `width` steps centred on step
    /// `ceil(4·width)`, emitted during steps `0..=ceil(8·width)` (the tails
    /// past 4 standard deviations, below 3.4e-4 of the peak, are cut).
    Gaussian {
        /// Standard deviation, in steps.
        width: f64,
    },
    /// `sin(2π·step/period)` during steps `0..steps` (0: until the end).
    Sine {
        /// Period, in steps.
        period: f64,
        /// Steps the radio transmits (0: the whole run).
        steps: u32,
    },
}

impl Waveform {
    /// The excitation at `step`, for a unit amplitude.
    ///
    /// ```
    /// use timewarp_models::tlm::Waveform;
    /// let g = Waveform::Gaussian { width: 2.0 };
    /// assert_eq!(g.value(8), 1.0); // the centre, ceil(4·2)
    /// assert_eq!(g.last_step(), Some(16));
    /// assert_eq!(Waveform::Impulse.value(1), 0.0);
    /// ```
    #[inline]
    pub fn value(&self, step: u32) -> f64 {
        match *self {
            Waveform::Impulse => f64::from(u8::from(step == 0)),
            Waveform::Gaussian { width } => {
                let centre = (4.0 * width).ceil();
                if step as f64 > 2.0 * centre {
                    return 0.0;
                }
                let d = (step as f64 - centre) / width;
                (-0.5 * d * d).exp()
            }
            Waveform::Sine { period, steps } => {
                if steps > 0 && step >= steps {
                    return 0.0;
                }
                (std::f64::consts::TAU * step as f64 / period).sin()
            }
        }
    }

    /// The last step at which the source emits (`None`: until the run ends).
    pub fn last_step(&self) -> Option<u32> {
        match *self {
            Waveform::Impulse => Some(0),
            Waveform::Gaussian { width } => Some(2 * (4.0 * width).ceil() as u32),
            Waveform::Sine { steps: 0, .. } => None,
            Waveform::Sine { steps, .. } => Some(steps - 1),
        }
    }

    /// Whether the source still emits at `step`.
    #[inline]
    pub fn emits_at(&self, step: u32) -> bool {
        match self.last_step() {
            None => true,
            Some(last) => step <= last,
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            Waveform::Gaussian { width } if !(width.is_finite() && width > 0.0 && width <= 1e8) => {
                Err(format!("--width must be a number of steps in (0, 1e8], got {width}"))
            }
            Waveform::Sine { period, .. } if !(period.is_finite() && period > 0.0) => {
                Err(format!("--period must be a positive number of steps, got {period}"))
            }
            _ => Ok(()),
        }
    }
}
